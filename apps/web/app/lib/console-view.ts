import { parseAnsiLine } from './ansi.ts';

/** Lines the page keeps; older ones leave the top (the API replays the last 150 on every subscription). */
export const CONSOLE_LINES_MAX = 2000;

/**
 * Writes console lines into an element as text: one block per line, wrapped at the element's width (a phone
 * wraps lines instead of cutting them), each coloured run a span. A background colour is drawn behind its
 * own run only, per wrapped fragment (`box-decoration-break: clone`), never across the rest of the row or
 * onto the next line. Lines arriving together are written once per frame, and the view follows new lines
 * while the reader is at the bottom.
 */
export class ConsoleView {
  private pending: string[] = [];
  private frame: number | null = null;

  constructor(private host: HTMLElement) {}

  write(lines: readonly string[]): void {
    this.pending.push(...lines);
    if (this.pending.length > CONSOLE_LINES_MAX) this.pending.splice(0, this.pending.length - CONSOLE_LINES_MAX);
    this.frame ??= requestAnimationFrame(() => this.flush());
  }

  /** Stops writing and empties the element. */
  dispose(): void {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
    this.pending = [];
    this.host.replaceChildren();
  }

  private flush(): void {
    this.frame = null;
    const host = this.host;
    const atBottom = host.scrollHeight - host.scrollTop - host.clientHeight < 24;
    const fragment = document.createDocumentFragment();
    for (const line of this.pending) fragment.append(renderLine(line));
    this.pending = [];
    host.append(fragment);
    while (host.childElementCount > CONSOLE_LINES_MAX) host.firstElementChild?.remove();
    if (atBottom) host.scrollTop = host.scrollHeight;
  }
}

/**
 * The date the built-in runtime writes before each line's time ("November 28th 2026, 09:12:00 [INFO]"): on a
 * phone it would take half of every line, so it is its own span, which app.css hides below 640 px.
 */
const LEADING_DATE = /^[A-Z][a-z]+ \d{1,2}(?:st|nd|rd|th) \d{4}, (?=\d{2}:\d{2}:\d{2} )/;

function renderLine(line: string): HTMLElement {
  const block = document.createElement('div');
  block.className = 'console-line';
  for (const [index, segment] of parseAnsiLine(line).entries()) {
    const date = index === 0 ? LEADING_DATE.exec(segment.text)?.[0] : undefined;
    if (date) {
      const dateSpan = document.createElement('span');
      dateSpan.className = 'console-date';
      dateSpan.textContent = date;
      dateSpan.style.color = segment.color;
      block.append(dateSpan);
      segment.text = segment.text.slice(date.length);
    }
    const span = document.createElement('span');
    span.textContent = segment.text;
    // Set through the CSSOM (allowed by the pages' CSP, unlike style attributes in markup).
    span.style.color = segment.color;
    if (segment.background) {
      span.style.backgroundColor = segment.background;
      span.className = 'console-bg';
    }
    if (segment.bold) span.style.fontWeight = '700';
    if (segment.italic) span.style.fontStyle = 'italic';
    if (segment.underline || segment.strike)
      span.style.textDecoration = [segment.underline ? 'underline' : '', segment.strike ? 'line-through' : ''].join(' ').trim();
    block.append(span);
  }
  // An empty line keeps its height.
  if (!block.firstChild) block.textContent = '\u200b';
  return block;
}

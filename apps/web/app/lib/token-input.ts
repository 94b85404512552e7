import { TWOFACTOR_DIGITS } from '@spawnpoint/contracts';

export interface TokenState {
  digits: string[];
  /** Index of the box that should have focus next. */
  focus: number;
  /** All boxes filled by this change: submit the token. */
  complete: boolean;
}

export const emptyToken = (): string[] => Array.from({ length: TWOFACTOR_DIGITS }, () => '');

/**
 * Six single-digit boxes. Typing a digit fills the box and moves on; a non-digit is cleared;
 * pasting several digits fills the boxes from there; the sixth digit completes the token.
 */
export function typeInto(digits: readonly string[], index: number, value: string): TokenState {
  const next = [...digits];
  const typed = value.replace(/\D/g, '');
  if (!typed) {
    next[index] = '';
    return { digits: next, focus: index, complete: false };
  }
  let at = index;
  for (const ch of typed) {
    if (at >= next.length) break;
    next[at++] = ch;
  }
  const complete = next.every((d) => d !== '') && at >= next.length;
  return { digits: next, focus: Math.min(at, next.length - 1), complete };
}

/** Backspace on an empty box moves back and clears the previous one. */
export function backspace(digits: readonly string[], index: number): TokenState {
  const next = [...digits];
  if (next[index]) {
    next[index] = '';
    return { digits: next, focus: index, complete: false };
  }
  const previous = Math.max(0, index - 1);
  next[previous] = '';
  return { digits: next, focus: previous, complete: false };
}

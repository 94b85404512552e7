import {
  endpoints,
  motdColours,
  MOTD_LINE_MAX,
  MOTD_RAW_MAX,
  toTypedCodes,
  type AppearanceResult,
  type ParsedMotd,
} from '@spawnpoint/contracts';
import { useId, useRef, useState } from 'react';
import { ApiFailure, call } from '../../lib/api.ts';
import { notify } from '../../lib/toasts.ts';
import { Button } from '../button.tsx';

const formatButtons = [
  { code: 'l', label: 'Bold', sample: 'B', style: { fontWeight: 700 } },
  { code: 'o', label: 'Italic', sample: 'I', style: { fontStyle: 'italic' } },
  { code: 'n', label: 'Underlined', sample: 'U', style: { textDecoration: 'underline' } },
  { code: 'm', label: 'Strikethrough', sample: 'S', style: { textDecoration: 'line-through' } },
  { code: 'k', label: 'Obfuscated', sample: '?', style: {} },
  { code: 'r', label: 'Reset', sample: 'R', style: {} },
] as const;

/**
 * The message of the day as typed codes (&a, &l…) with buttons that insert them; `parsed` is what the
 * preview shows and what the API would refuse.
 */
export function MotdEditor({
  serverId: id,
  saved,
  motd,
  setMotd,
  parsed,
  canEdit,
  onSaved,
}: {
  serverId: string;
  saved: AppearanceResult;
  motd: string;
  setMotd: (motd: string) => void;
  parsed: ParsedMotd;
  canEdit: boolean;
  onSaved: (result: AppearanceResult) => void;
}) {
  const [fieldError, setFieldError] = useState<string | null>(null);
  const editor = useRef<HTMLTextAreaElement>(null);
  const hintId = useId();

  /** Puts a code at the cursor (or before the selection) and keeps the focus in the editor. */
  function insert(code: string) {
    const area = editor.current;
    const start = area?.selectionStart ?? motd.length;
    const end = area?.selectionEnd ?? motd.length;
    const next = `${motd.slice(0, start)}&${code}${motd.slice(start, end)}${motd.slice(end)}`;
    if (next.length > MOTD_RAW_MAX) return;
    setMotd(next);
    requestAnimationFrame(() => {
      area?.focus();
      area?.setSelectionRange(start + 2, end + 2);
    });
  }

  async function saveMotd() {
    setFieldError(null);
    try {
      const result = await call(endpoints.appearanceUpdate, { params: { serverId: id }, body: { motd } });
      onSaved(result);
      setMotd(toTypedCodes(result.motd));
      notify('success', 'Message of the day saved', 'It shows in the server list after the next start.');
    } catch (err) {
      if (err instanceof ApiFailure) setFieldError(err.fields.motd ?? err.message);
    }
  }

  return (
    <section aria-labelledby="motd-heading" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-6">
      <h2 id="motd-heading" className="text-lg font-semibold">
        Message of the day
      </h2>
      <CodeToolbar disabled={!canEdit} insert={insert} />
      <label htmlFor="motd" className="mt-3 block text-sm font-medium text-slate-700">
        Two lines, {MOTD_LINE_MAX} characters each
      </label>
      <textarea
        id="motd"
        ref={editor}
        rows={2}
        value={motd}
        readOnly={!canEdit}
        maxLength={MOTD_RAW_MAX}
        spellCheck={false}
        aria-describedby={hintId}
        aria-invalid={parsed.problems.length > 0 || fieldError !== null}
        onChange={(e) => {
          setMotd(e.target.value);
          setFieldError(null);
        }}
        className="mt-1 block w-full resize-y rounded-md border border-slate-300 px-3 py-2 font-mono text-sm"
      />
      <p id={hintId} className="mt-1 text-xs text-slate-500">
        Codes start with &amp; or §: &amp;0–&amp;9 and &amp;a–&amp;f are colours, &amp;l bold, &amp;o italic, &amp;n underlined, &amp;m
        strikethrough, &amp;k obfuscated, &amp;r reset, &amp;#rrggbb any colour (Minecraft 1.16 and newer).
      </p>
      <div role="alert" aria-live="polite">
        {[...parsed.problems, ...(fieldError && !parsed.problems.includes(fieldError) ? [fieldError] : [])].map((p) => (
          <p key={p} className="mt-1 text-sm text-red-600">
            {p}
          </p>
        ))}
      </div>
      <Button className="mt-3" disabled={!canEdit || parsed.problems.length > 0 || motd === toTypedCodes(saved.motd)} onClick={saveMotd}>
        Save message
      </Button>
    </section>
  );
}

/** A button per colour and format code: each puts its code at the cursor. */
function CodeToolbar({ disabled, insert }: { disabled: boolean; insert: (code: string) => void }) {
  return (
    <div className="mt-3 flex flex-wrap gap-1" role="toolbar" aria-label="Colour and format codes">
      {Object.entries(motdColours).map(([code, colour]) => (
        <button
          key={code}
          type="button"
          disabled={disabled}
          onClick={() => insert(code)}
          title={`&${code} ${colour.name.replace('_', ' ')}`}
          aria-label={`Insert &${code}, ${colour.name.replace('_', ' ')}`}
          className="h-8 w-8 rounded border border-slate-300 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 disabled:opacity-50"
          style={{ backgroundColor: colour.hex }}
        />
      ))}
      {formatButtons.map((f) => (
        <button
          key={f.code}
          type="button"
          disabled={disabled}
          onClick={() => insert(f.code)}
          title={`&${f.code} ${f.label}`}
          aria-label={`Insert &${f.code}, ${f.label.toLowerCase()}`}
          className="h-8 w-8 rounded border border-slate-300 bg-white text-sm text-slate-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 disabled:opacity-50"
          style={f.style}
        >
          {f.sample}
        </button>
      ))}
    </div>
  );
}

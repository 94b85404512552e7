import { useState } from 'react';
import { notify } from '../lib/toasts.ts';

/**
 * A value (an address) that copies itself when pressed. It never grows past its container: a long value is
 * cut with an ellipsis (the whole value is still what gets copied, and in the title and the label), or,
 * with `wrap`, breaks over lines so it can be read in full on a phone.
 */
export function CopyButton({ value, label, wrap = false }: { value: string; label: string; wrap?: boolean }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="inline-flex max-w-full min-w-0 items-center gap-2 rounded-md border border-slate-300 bg-white px-2.5 py-1 text-left font-mono text-sm text-slate-800 hover:bg-slate-50"
      aria-label={`${label}: ${value}. Copy`}
      title={value}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(value);
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        } catch {
          notify('warning', 'Could not copy', 'Select the address and copy it by hand.');
        }
      }}
    >
      <span className={`min-w-0 ${wrap ? 'break-all' : 'truncate'}`}>{value}</span>
      <span className="shrink-0 text-xs font-sans font-semibold text-brand-700">{copied ? 'Copied' : 'Copy'}</span>
    </button>
  );
}

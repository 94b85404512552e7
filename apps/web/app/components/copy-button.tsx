import { useState } from 'react';
import { notify } from '../lib/toasts.ts';

export function CopyButton({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="inline-flex items-center gap-2 rounded-md border border-slate-300 bg-white px-2.5 py-1 font-mono text-sm text-slate-800 hover:bg-slate-50"
      aria-label={`${label}: ${value}. Copy`}
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
      <span className="truncate">{value}</span>
      <span className="text-xs font-sans font-semibold text-brand-700">{copied ? 'Copied' : 'Copy'}</span>
    </button>
  );
}

import { Button } from './button.tsx';
import { useEffect, useRef } from 'react';
import { backspace, typeInto } from '../lib/token-input.ts';

/** Six single-digit boxes; calls `onComplete` with the token when the sixth digit is entered. */
export function TokenInput({
  digits,
  onChange,
  onComplete,
  disabled,
  label = 'Six-digit code',
}: {
  digits: string[];
  onChange: (digits: string[]) => void;
  onComplete: (token: string) => void;
  disabled?: boolean;
  label?: string;
}) {
  const boxes = useRef<(HTMLInputElement | null)[]>([]);
  useEffect(() => {
    if (digits.every((d) => d === '')) boxes.current[0]?.focus();
  }, [digits]);

  return (
    // Below sm the boxes are a little smaller and closer: six of them then fit a dialog on a 360 px phone.
    <div role="group" aria-label={label} className="flex justify-center gap-1.5 sm:gap-2">
      {digits.map((digit, index) => (
        <input
          key={index}
          ref={(el) => {
            boxes.current[index] = el;
          }}
          value={digit}
          disabled={disabled}
          inputMode="numeric"
          autoComplete={index === 0 ? 'one-time-code' : 'off'}
          aria-label={`Digit ${index + 1}`}
          className="size-10 rounded-md border border-slate-300 text-center font-mono text-xl focus:border-brand-600 focus:outline-none focus:ring-2 focus:ring-brand-600/30 sm:size-11"
          onChange={(event) => {
            // Typing over a filled box replaces its digit.
            const raw = event.target.value;
            const value = digit && raw.length > 1 && raw.startsWith(digit) ? raw.slice(digit.length) : raw;
            const state = typeInto(digits, index, value);
            onChange(state.digits);
            boxes.current[state.focus]?.focus();
            if (state.complete) onComplete(state.digits.join(''));
          }}
          onKeyDown={(event) => {
            if (event.key === 'Backspace') {
              event.preventDefault();
              const state = backspace(digits, index);
              onChange(state.digits);
              boxes.current[state.focus]?.focus();
            } else if (event.key === 'ArrowLeft') boxes.current[Math.max(0, index - 1)]?.focus();
            else if (event.key === 'ArrowRight') boxes.current[Math.min(digits.length - 1, index + 1)]?.focus();
          }}
        />
      ))}
    </div>
  );
}

/** The alternative to the six boxes: one recovery code, submitted lower-cased and trimmed. */
export function RecoveryCodeForm({
  id,
  value,
  onChange,
  onSubmit,
  busy,
  submitLabel,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  onSubmit: (code: string) => void;
  busy: boolean;
  submitLabel: string;
}) {
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(value.trim().toLowerCase());
      }}
    >
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        Recovery code
      </label>
      <input
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 font-mono"
        placeholder="xxxxx-xxxxx"
        autoComplete="one-time-code"
      />
      <Button type="submit" className="mt-4 w-full" busy={busy}>
        {submitLabel}
      </Button>
    </form>
  );
}

import type { ButtonHTMLAttributes, Ref } from 'react';
import { buttonClass, type ButtonVariant as Variant } from './styles.ts';

export { buttonClass };

export function Button({
  variant = 'primary',
  className = '',
  busy,
  children,
  ref,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; busy?: boolean; ref?: Ref<HTMLButtonElement> }) {
  return (
    <button ref={ref} {...rest} disabled={rest.disabled || busy} aria-busy={busy || undefined} className={buttonClass(variant, className)}>
      {busy ? <span className="size-4 animate-spin rounded-full border-2 border-current border-t-transparent" aria-hidden="true" /> : null}
      {children}
    </button>
  );
}

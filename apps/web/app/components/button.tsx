import type { ButtonHTMLAttributes, MouseEvent, Ref } from 'react';
import { ApiFailure } from '../lib/api.ts';
import { handleUnexpectedError } from '../lib/api-errors.ts';
import { useSending } from '../lib/use-sending.ts';
import { buttonClass, type ButtonVariant as Variant } from './styles.ts';

export { buttonClass };

type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick'> & {
  variant?: Variant;
  /** Work this button stands for is under way elsewhere (its form is being submitted, a job runs). */
  busy?: boolean;
  ref?: Ref<HTMLButtonElement>;
  /** When it returns a promise, the button is disabled and spins until the promise settles. */
  onClick?: (event: MouseEvent<HTMLButtonElement>) => unknown;
};

/**
 * Every button that sends disables itself until the answer, so a double click cannot send twice. A click
 * handler that returns its promise gets this here, once for all; a submit button shows its form's
 * `submitting` (lib/form.ts, lib/use-sending.ts) through `busy`.
 */
export function Button({ variant = 'primary', className = '', busy, children, ref, onClick, ...rest }: ButtonProps) {
  const { sending, send } = useSending();
  const spinning = busy || sending;
  const handleClick = onClick
    ? (event: MouseEvent<HTMLButtonElement>) => {
        send(() => onClick(event)).catch((error: unknown) => {
          // The API client has shown its own failures (docs/product.md, What a user sees when something
          // fails); anything else is a bug to surface.
          if (!(error instanceof ApiFailure)) handleUnexpectedError(error);
        });
      }
    : undefined;
  return (
    <button
      ref={ref}
      {...rest}
      onClick={handleClick}
      disabled={rest.disabled || spinning}
      aria-busy={spinning || undefined}
      className={buttonClass(variant, className)}
    >
      {spinning ? (
        <span className="size-4 animate-spin rounded-full border-2 border-current border-t-transparent" aria-hidden="true" />
      ) : null}
      {children}
    </button>
  );
}

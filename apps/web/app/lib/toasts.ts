import { toast } from 'sonner';

export type ToastType = 'success' | 'info' | 'warning' | 'danger';

/** The four toast types; sonner renders them top-right for 5000 ms (see root.tsx). */
export function notify(type: ToastType, title: string, message?: string): void {
  // Line breaks are kept: error details (outside production) come on lines of their own.
  const options = message ? { description: message, classNames: { description: 'whitespace-pre-line break-words' } } : {};
  if (type === 'success') toast.success(title, options);
  else if (type === 'info') toast.info(title, options);
  else if (type === 'warning') toast.warning(title, options);
  else toast.error(title, options);
}

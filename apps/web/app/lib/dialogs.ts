import { createStore } from './store.ts';

export interface ConfirmOptions {
  title: string;
  message: string;
  confirmLabel?: string;
  danger?: boolean;
  onConfirm: () => void | Promise<void>;
}

export interface InputOptions {
  title: string;
  message?: string;
  label: string;
  initialValue?: string;
  onContinue: (value: string) => void | Promise<void>;
}

export type FeedbackOptions = Record<string, never>;
/** `message`: what the server said about this refusal (an upload that does not fit), instead of the general words. */
export type DiskLimitOptions = { message?: string };

export interface DialogOptionsByName {
  confirm: ConfirmOptions;
  input: InputOptions;
  feedback: FeedbackOptions;
  'disk-limit': DiskLimitOptions;
  'enable-twofactor': { onDone?: () => void };
  'disable-twofactor': { onDone?: () => void };
}

export type DialogName = keyof DialogOptionsByName;

export type OpenDialog = { [K in DialogName]: { name: K; options: DialogOptionsByName[K] } }[DialogName];

/** The one dialog store. A dialog opens through the `open-{dialogName}` event with its options. */
export const dialogStore = createStore<OpenDialog | null>(null);

export function openDialog<K extends DialogName>(name: K, options: DialogOptionsByName[K]): void {
  window.dispatchEvent(new CustomEvent(`open-${name}`, { detail: options }));
}

export function closeDialog(): void {
  dialogStore.set(null);
}

export const dialogNames: DialogName[] = ['confirm', 'input', 'feedback', 'disk-limit', 'enable-twofactor', 'disable-twofactor'];

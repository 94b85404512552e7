import type { FileEntry } from '@spawnpoint/contracts';
import { createStore } from './store.ts';
import type { ConflictChoice } from './upload-plan.ts';

export interface ConfirmOptions {
  title: string;
  message: string;
  /** A document the message refers to (opens in a new tab), such as the Minecraft EULA. */
  link?: { href: string; label: string };
  confirmLabel?: string;
  danger?: boolean;
  /** Text the user types before the confirm button works (a server's name before deleting it for good). */
  typeToConfirm?: string;
  onConfirm: () => void | Promise<void>;
}

export interface InputOptions {
  title: string;
  message?: string;
  label: string;
  initialValue?: string;
  /** A password: typed unseen, offered by the browser's password manager. */
  secret?: boolean;
  /** What is wrong with the typed value (said in the dialog, which stays open), or null when it may be sent. */
  validate?: (value: string) => string | null;
  onContinue: (value: string) => void | Promise<void>;
}

export type FeedbackOptions = Record<string, never>;
/** `message`: what the server said about this refusal (an upload that does not fit), instead of the general words. */
export type DiskLimitOptions = { message?: string };

/** What the user answered about a name in use: their choice and whether it holds for the conflicts after it. */
export type ConflictAnswer = { choice: ConflictChoice; applyToAll: boolean };

/** An upload's file whose name is taken in the folder it goes into: Replace, Keep both, Skip, or cancel the upload. */
export interface UploadConflictOptions {
  /** The name in use and the folder it is in ("/plugins"). */
  name: string;
  folder: string;
  /** What is there now, and the size of the file being uploaded. */
  existing: Pick<FileEntry, 'type' | 'size' | 'modifiedAt'>;
  uploadSize: number;
  /** How many conflicts come after this one (the "apply to all" checkbox is offered when there are any). */
  remaining: number;
  /** Called once with the answer, or null when the upload is cancelled (Cancel, Escape, leaving the page). */
  onAnswer: (answer: ConflictAnswer | null) => void;
}

export interface DialogOptionsByName {
  confirm: ConfirmOptions;
  input: InputOptions;
  feedback: FeedbackOptions;
  'disk-limit': DiskLimitOptions;
  'enable-twofactor': { onDone?: () => void };
  'disable-twofactor': { onDone?: () => void };
  'upload-conflict': UploadConflictOptions;
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

export const dialogNames: DialogName[] = [
  'confirm',
  'input',
  'feedback',
  'disk-limit',
  'enable-twofactor',
  'disable-twofactor',
  'upload-conflict',
];

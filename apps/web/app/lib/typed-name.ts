import { validationMessages } from '@spawnpoint/contracts';
import { notify } from './toasts.ts';

/**
 * A name typed into one of the files page's dialogs, or null after saying (in the form rule's words) that
 * it is missing; the dialog stays open for another try. Blank would otherwise name the folder itself, and
 * the API's answer ("plugins already exists") would not tell the user what is wrong.
 */
export function typedName(value: string, field: string): string | null {
  if (value.trim() && !/\/\s*$/.test(value)) return value;
  notify('warning', validationMessages.required(field));
  return null;
}

import { validationMessages } from '@spawnpoint/contracts';

/**
 * What is wrong with a name typed into one of the files page's dialogs (in the form rule's words), or null.
 * Blank, or ending in "/", would name the folder itself, and the API's answer ("plugins already exists")
 * would not tell the user what is wrong.
 */
export function nameProblem(value: string, field: string): string | null {
  return value.trim() && !/\/\s*$/.test(value) ? null : validationMessages.required(field);
}

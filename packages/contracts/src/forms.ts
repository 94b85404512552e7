import { z } from 'zod';
import { changeEmailRequest, changePasswordRequest } from './account.ts';
import { loginRequest, passwordRecoveryRequest, passwordResetRequest, registerRequest } from './api.ts';
import { validationMessages } from './validation.ts';

/**
 * The web app's account forms, each the request schema its endpoint parses (so a form says what the API
 * would, in the same words, before anything is sent), with the fields only the form has: a confirmation
 * typed twice. A form's values are its fields' text.
 */

/**
 * `schema` plus `field`, which must repeat `of`: required, then equal. The comparison runs whenever the
 * confirmation is typed, even while another field is still wrong, so it is said at once.
 */
function withConfirmation<S extends z.ZodObject, F extends string>(
  schema: S,
  of: keyof z.infer<S> & string,
  field: F,
  label: string,
): z.ZodObject<S['shape'] & Record<F, z.ZodString>> {
  type Form = z.ZodObject<S['shape'] & Record<F, z.ZodString>>;
  const confirmation = z.string({ error: validationMessages.required(label) }).min(1, validationMessages.required(label));
  const extended = schema.extend({ [field]: confirmation }) as unknown as Form;
  const read = (value: unknown, key: string) =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return extended.refine((values) => read(values, of) === read(values, field), {
    path: [field],
    message: validationMessages.confirmed(label),
    when: (payload) => typeof read(payload.value, field) === 'string' && read(payload.value, field) !== '',
  });
}

export const registerForm = withConfirmation(
  registerRequest.pick({ emailAddress: true, password: true }),
  'password',
  'passwordConfirmation',
  'password confirmation',
);
export const loginForm = loginRequest.pick({ emailAddress: true, password: true });
export const passwordRecoveryForm = passwordRecoveryRequest;
export const passwordResetForm = withConfirmation(
  passwordResetRequest.pick({ password: true }),
  'password',
  'passwordConfirmation',
  'password confirmation',
);
export const changeEmailForm = changeEmailRequest;
export const changePasswordForm = withConfirmation(
  changePasswordRequest.pick({ currentPassword: true, newPassword: true }),
  'newPassword',
  'newPasswordConfirmation',
  'password confirmation',
);

/** A form's fields by name: what `useForm` holds and checks. */
export type FormFields<S extends z.ZodType> = Extract<keyof z.input<S>, string>;

import { validateValue, type Rule } from '@spawnpoint/contracts';
import { useCallback, useRef, useState, type FormEvent } from 'react';
import { ApiFailure } from './api.ts';
import { handleUnexpectedError } from './api-errors.ts';
import { useSending } from './use-sending.ts';

export interface FieldSpec {
  /** The name used in messages ("email address"). */
  label: string;
  rules: readonly Rule[];
}

/**
 * A field is validated when it loses focus and on change events once it has been touched;
 * typing into an untouched field shows nothing yet. Server field messages land on the same fields.
 */
export function useForm<F extends string>(fields: Record<F, FieldSpec>, initial?: Partial<Record<F, string>>) {
  const names = Object.keys(fields) as F[];
  const [values, setValues] = useState<Record<F, string>>(
    () => Object.fromEntries(names.map((n) => [n, initial?.[n] ?? ''])) as Record<F, string>,
  );
  const [errors, setErrors] = useState<Partial<Record<F | '_', string>>>({});
  const { sending: submitting, send } = useSending();
  const touched = useRef(new Set<F>());
  const valuesRef = useRef(values);
  valuesRef.current = values;

  const check = useCallback(
    (name: F, all: Record<F, string>) => validateValue(fields[name].label, all[name], fields[name].rules, all),
    [fields],
  );

  const field = (name: F) => ({
    id: `field-${name}`,
    name,
    value: values[name],
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': errors[name] ? `field-${name}-error` : undefined,
    onChange: (event: { target: { value: string } }) => {
      const next = { ...valuesRef.current, [name]: event.target.value };
      valuesRef.current = next;
      setValues(next);
      if (touched.current.has(name)) setErrors((e) => ({ ...e, [name]: check(name, next) ?? undefined }));
    },
    onBlur: () => {
      touched.current.add(name);
      setErrors((e) => ({ ...e, [name]: check(name, valuesRef.current) ?? undefined }));
    },
  });

  /** Back to the first values, untouched and without messages (after a success that must not be re-sent). */
  const reset = useCallback(() => {
    const first = Object.fromEntries(names.map((n) => [n, initial?.[n] ?? ''])) as Record<F, string>;
    valuesRef.current = first;
    setValues(first);
    setErrors({});
    touched.current.clear();
    // No dependencies: the field names and first values are fixed for the form's life.
  }, []);

  /**
   * One submission at a time: a form sends nothing while its answer is awaited (its submit button shows
   * `submitting` as busy and is disabled), so a double click or a second Enter cannot send it twice.
   */
  const handleSubmit = (submit: (values: Record<F, string>) => Promise<void>) => (event: FormEvent) => {
    event.preventDefault();
    return send(() => validateAndSubmit(submit));
  };

  async function validateAndSubmit(submit: (values: Record<F, string>) => Promise<void>): Promise<void> {
    const found: Partial<Record<F | '_', string>> = {};
    for (const name of names) {
      touched.current.add(name);
      const message = check(name, valuesRef.current);
      if (message) found[name] = message;
    }
    setErrors(found);
    const first = names.find((n) => found[n] !== undefined);
    if (first) {
      document.getElementById(`field-${first}`)?.focus();
      return;
    }
    try {
      await submit(valuesRef.current);
    } catch (error) {
      if (!(error instanceof ApiFailure)) handleUnexpectedError(error);
      else if (Object.keys(error.fields).length) setErrors(error.fields as Partial<Record<F | '_', string>>);
    }
  }

  return { values, errors, submitting, field, handleSubmit, setErrors, reset };
}

import type { FormFields } from '@spawnpoint/contracts';
import { useCallback, useRef, useState, type FormEvent } from 'react';
import type { z } from 'zod';
import { ApiFailure } from './api.ts';
import { handleUnexpectedError } from './api-errors.ts';
import { useSending } from './use-sending.ts';

/**
 * The first message the form's schema (contracts' forms.ts: the request schema its endpoint parses, plus a
 * confirmation) gives each field, for the values as typed.
 */
function messages<F extends string>(schema: z.ZodType, values: Record<F, string>): Partial<Record<F | '_', string>> {
  const found: Partial<Record<F | '_', string>> = {};
  for (const issue of schema.safeParse(values).error?.issues ?? []) {
    const name = issue.path[0] as F | undefined;
    if (name !== undefined && found[name] === undefined) found[name] = issue.message;
  }
  return found;
}

/**
 * A form checked by its zod schema, field by field: a field is checked when it loses focus and on change
 * once it has been touched; typing into an untouched field shows nothing yet. The API's field messages land
 * on the same fields.
 */
export function useForm<S extends z.ZodObject>(schema: S, initial: Partial<Record<FormFields<S>, string>> = {}) {
  type F = FormFields<S>;
  const names = useRef(Object.keys(schema.shape) as F[]).current;
  const first = () => Object.fromEntries(names.map((n) => [n, initial[n] ?? ''])) as Record<F, string>;
  const [values, setValues] = useState<Record<F, string>>(first);
  const [errors, setErrors] = useState<Partial<Record<F | '_', string>>>({});
  const { sending: submitting, send } = useSending();
  const touched = useRef(new Set<F>());
  const valuesRef = useRef(values);
  valuesRef.current = values;

  const check = useCallback((name: F, all: Record<F, string>) => messages(schema, all)[name], [schema]);

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
      if (touched.current.has(name)) setErrors((e) => ({ ...e, [name]: check(name, next) }));
    },
    onBlur: () => {
      touched.current.add(name);
      setErrors((e) => ({ ...e, [name]: check(name, valuesRef.current) }));
    },
  });

  /** Back to the first values, untouched and without messages (after a success that must not be re-sent). */
  const reset = useCallback(() => {
    valuesRef.current = first();
    setValues(valuesRef.current);
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
    for (const name of names) touched.current.add(name);
    const found = messages(schema, valuesRef.current);
    setErrors(found);
    const wrong = names.find((n) => found[n] !== undefined);
    if (wrong) {
      document.getElementById(`field-${wrong}`)?.focus();
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

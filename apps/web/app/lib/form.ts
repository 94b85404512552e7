import { validateValue, type Rule } from '@spawnpoint/contracts';
import { useCallback, useRef, useState, type FormEvent } from 'react';
import { ApiFailure } from './api.ts';

export interface FieldSpec {
  /** The name used in messages ("email address"). */
  label: string;
  rules: readonly Rule[];
}

/**
 * Spec §5: a field is validated when it loses focus and on change events once it has been touched;
 * typing into an untouched field shows nothing yet. Server field messages land on the same fields.
 */
export function useForm<F extends string>(fields: Record<F, FieldSpec>, initial?: Partial<Record<F, string>>) {
  const names = Object.keys(fields) as F[];
  const [values, setValues] = useState<Record<F, string>>(
    () => Object.fromEntries(names.map((n) => [n, initial?.[n] ?? ''])) as Record<F, string>,
  );
  const [errors, setErrors] = useState<Partial<Record<F | '_', string>>>({});
  const [submitting, setSubmitting] = useState(false);
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

  const handleSubmit = (submit: (values: Record<F, string>) => Promise<void>) => async (event: FormEvent) => {
    event.preventDefault();
    if (submitting) return;
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
    setSubmitting(true);
    try {
      await submit(valuesRef.current);
    } catch (error) {
      if (error instanceof ApiFailure && Object.keys(error.fields).length) setErrors(error.fields as Partial<Record<F | '_', string>>);
    } finally {
      setSubmitting(false);
    }
  };

  return { values, errors, submitting, field, handleSubmit, setErrors };
}

// The settings form of a first-party plugin, drawn from the fields its catalogue entry declares.
import { type InstalledPlugin, type PluginSettingField } from '@spawnpoint/contracts';
import { useState } from 'react';
import { Button } from '../button.tsx';
import { Field, FormError } from '../field.tsx';
import { ApiFailure } from '../../lib/api.ts';
import { useSending } from '../../lib/use-sending.ts';

export function SettingsForm({
  plugin,
  fields,
  onSave,
}: {
  plugin: InstalledPlugin;
  fields: PluginSettingField[];
  onSave: (settings: Record<string, unknown>) => Promise<void>;
}) {
  const [values, setValues] = useState<Record<string, unknown>>(() =>
    Object.fromEntries(fields.map((f) => [f.key, plugin.settings[f.key] ?? f.default])),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  const { sending, send } = useSending();
  const set = (key: string, value: unknown) => setValues((v) => ({ ...v, [key]: value }));
  const idOf = (key: string) => `plugin-${plugin.id}-${key}`;

  function submit(event: React.FormEvent) {
    event.preventDefault();
    void send(async () => {
      setErrors({});
      setFormError(undefined);
      try {
        await onSave(values);
      } catch (failure) {
        if (!(failure instanceof ApiFailure)) return;
        const byKey = Object.fromEntries(Object.entries(failure.fields).map(([k, m]) => [k.replace(/^settings\./, ''), m]));
        setErrors(byKey);
        if (Object.keys(byKey).length === 0) setFormError(failure.message);
      }
    });
  }

  return (
    <form onSubmit={submit} noValidate className="grid gap-3 rounded-lg bg-slate-50 p-3" aria-label={`Settings of ${plugin.name}`}>
      {fields.map((f) => (
        <SettingField key={f.key} id={idOf(f.key)} field={f} value={values[f.key]} error={errors[f.key]} onChange={(v) => set(f.key, v)} />
      ))}
      <FormError message={formError} />
      <div>
        <Button type="submit" busy={sending}>
          Save settings
        </Button>
      </div>
    </form>
  );
}

/** One declared setting, drawn for its kind: text, number (with its unit), a switch, or lines. */
function SettingField({
  id,
  field: f,
  value,
  error,
  onChange,
}: {
  id: string;
  field: PluginSettingField;
  value: unknown;
  error: string | undefined;
  onChange: (value: unknown) => void;
}) {
  const hint = f.help ? <p className="mt-1 text-xs text-slate-500">{f.help}</p> : null;
  switch (f.kind) {
    case 'text':
      return (
        <div>
          <Field
            id={id}
            label={f.label}
            maxLength={f.maxLength}
            value={String(value ?? '')}
            onChange={(e) => onChange(e.target.value)}
            error={error}
          />
          {hint}
        </div>
      );
    case 'number':
      return (
        <div>
          <Field
            id={id}
            label={f.unit ? `${f.label} (${f.unit})` : f.label}
            type="number"
            min={f.min}
            max={f.max}
            value={String(value ?? '')}
            onChange={(e) => onChange(e.target.value === '' ? '' : Number(e.target.value))}
            error={error}
          />
          {hint}
        </div>
      );
    case 'boolean':
      return (
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-1" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
          <span>{f.label}</span>
        </label>
      );
    case 'lines':
      return (
        <div>
          <label htmlFor={id} className="block text-sm font-medium text-slate-700">
            {f.label}
          </label>
          <textarea
            id={id}
            rows={4}
            className={`mt-1 block w-full rounded-md border px-3 py-2 font-mono text-xs text-slate-900 ${error ? 'border-red-500' : 'border-slate-300'}`}
            value={((value as string[] | undefined) ?? []).join('\n')}
            onChange={(e) => onChange(e.target.value.split('\n'))}
          />
          {error ? (
            <p role="alert" className="mt-1 text-sm text-red-600">
              {error}
            </p>
          ) : null}
          {hint}
        </div>
      );
  }
}

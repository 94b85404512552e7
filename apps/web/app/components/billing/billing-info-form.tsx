import { countryList, type BillingInfo } from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';
import { ApiFailure } from '../../lib/api.ts';
import { putBillingInfo } from '../../lib/billing.ts';
import { notify } from '../../lib/toasts.ts';
import { Button } from '../button.tsx';
import { Field, FormError } from '../field.tsx';
import { CARD_CLASS } from '../styles.ts';

/** Who receipts are made out to; needed before the first payment. */
export function BillingInfoForm({ info, onSaved }: { info: BillingInfo | null | undefined; onSaved: (info: BillingInfo | null) => void }) {
  const empty: BillingInfo = { name: '', addressLine1: '', addressLine2: '', postalCode: '', city: '', country: '', vatId: '' };
  const [values, setValues] = useState<BillingInfo>(info ?? empty);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  const [sending, setSending] = useState(false);
  useEffect(() => {
    if (info) setValues(info);
  }, [info]);
  const set = (key: keyof BillingInfo) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));

  async function save(event: React.FormEvent) {
    event.preventDefault();
    setErrors({});
    setFormError(undefined);
    setSending(true);
    try {
      const result = await putBillingInfo(values);
      onSaved(result.billingInfo);
      notify('success', 'Billing information saved', 'Receipts from now on are made out to it.');
    } catch (failure) {
      if (failure instanceof ApiFailure) {
        setErrors(failure.fields);
        if (Object.keys(failure.fields).length === 0) setFormError(failure.message);
      }
    } finally {
      setSending(false);
    }
  }

  return (
    <section aria-labelledby="billing-heading" className={CARD_CLASS}>
      <h2 id="billing-heading" className="text-lg font-semibold">
        Billing information
      </h2>
      <p className="mt-1 text-sm text-slate-600">Needed before your first payment. Receipts are made out to it.</p>
      {info === undefined ? (
        <p className="mt-3 text-sm text-slate-600" role="status">
          Loading…
        </p>
      ) : (
        <form className="mt-4 grid gap-4 sm:grid-cols-2" onSubmit={(e) => void save(e)} noValidate>
          <AddressFields values={values} set={set} errors={errors} />
          <div className="sm:col-span-2">
            <FormError message={formError} />
            <Button type="submit" busy={sending} className="mt-2">
              Save billing information
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}

/** The address fields, each with the API's message under it. */
function AddressFields({
  values,
  set,
  errors,
}: {
  values: BillingInfo;
  set: (key: keyof BillingInfo) => (e: { target: { value: string } }) => void;
  errors: Record<string, string>;
}) {
  return (
    <>
      <Field
        id="billing-name"
        label="Name or company"
        className="sm:col-span-2"
        value={values.name}
        onChange={set('name')}
        error={errors.name}
        autoComplete="name"
      />
      <Field
        id="billing-address1"
        label="Street address"
        className="sm:col-span-2"
        value={values.addressLine1}
        onChange={set('addressLine1')}
        error={errors.addressLine1}
        autoComplete="address-line1"
      />
      <Field
        id="billing-address2"
        label="Address line 2 (optional)"
        className="sm:col-span-2"
        value={values.addressLine2}
        onChange={set('addressLine2')}
        error={errors.addressLine2}
        autoComplete="address-line2"
      />
      <Field
        id="billing-postal"
        label="Postal code"
        value={values.postalCode}
        onChange={set('postalCode')}
        error={errors.postalCode}
        autoComplete="postal-code"
      />
      <Field id="billing-city" label="City" value={values.city} onChange={set('city')} error={errors.city} autoComplete="address-level2" />
      <div>
        <label htmlFor="billing-country" className="block text-sm font-medium text-slate-700">
          Country
        </label>
        <select
          id="billing-country"
          value={values.country}
          onChange={set('country')}
          autoComplete="country"
          aria-invalid={errors.country ? true : undefined}
          className={`mt-1 block w-full rounded-md border bg-white px-2 py-2 text-slate-900 ${errors.country ? 'border-red-500' : 'border-slate-300'}`}
        >
          <option value="">Choose a country</option>
          {countryList().map((c) => (
            <option key={c.code} value={c.code}>
              {c.name}
            </option>
          ))}
        </select>
        {errors.country ? (
          <p role="alert" className="mt-1 text-sm text-red-600">
            {errors.country}
          </p>
        ) : null}
      </div>
      <Field id="billing-vat" label="VAT number (optional)" value={values.vatId} onChange={set('vatId')} error={errors.vatId} />
    </>
  );
}

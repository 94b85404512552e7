import {
  countryList,
  formatPrice,
  TOPUP_MAX_CENTS,
  TOPUP_MIN_CENTS,
  TOPUP_PRESETS_CENTS,
  type BillingInfo,
  type PaymentView,
  type TransactionsResult,
} from '@spawnpoint/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { Field, FormError } from '../components/field.tsx';
import { Modal } from '../components/modal.tsx';
import { ApiFailure } from '../lib/api.ts';
import { getBillingInfo, getTopup, getTransactions, newIdempotencyKey, putBillingInfo, startTopup } from '../lib/billing.ts';
import { pageMeta } from '../lib/meta.ts';
import { notify } from '../lib/toasts.ts';

export const meta = () => pageMeta('account-billing', 'Your Spawnpoint balance, top-ups, billing information and receipts.');

const card = 'rounded-xl border border-slate-200 bg-white p-4 sm:p-6';
const kindNames: Record<string, string> = {
  topup: 'Top-up',
  plan: 'Plan',
  renewal: 'Renewal',
  shop: 'Shop',
  refund: 'Refund',
  commission: 'Commission',
  adjustment: 'Adjustment',
};

export default function AccountBilling() {
  const [data, setData] = useState<TransactionsResult | null>(null);
  const [info, setInfo] = useState<BillingInfo | null | undefined>(undefined);
  const [page, setPage] = useState(1);
  const [toppingUp, setToppingUp] = useState(false);
  const [params, setParams] = useSearchParams();

  const reload = useCallback(async () => setData(await getTransactions(page)), [page]);
  useEffect(() => {
    void reload().catch(() => undefined);
  }, [reload]);
  useEffect(() => {
    getBillingInfo().then(
      (r) => setInfo(r.billingInfo),
      () => setInfo(null),
    );
  }, []);

  // Back from the provider's page (?topup=id): the balance changes when the provider confirms, which may
  // take a moment after the browser returns; the page waits on it and says what happened.
  const returned = params.get('topup');
  useEffect(() => {
    if (!returned) return;
    let active = true;
    let tries = 0;
    const check = async () => {
      const payment = await getTopup(returned, { background: true }).catch(() => null);
      if (!active) return;
      if (payment?.status === 'pending' && tries++ < 30) {
        setTimeout(() => void check(), 1000);
        return;
      }
      setParams({}, { replace: true });
      if (payment?.status === 'succeeded')
        notify('success', 'Payment received', `${formatPrice(payment.amountCents)} was added to your balance.`);
      else if (payment?.status === 'declined') notify('danger', 'The payment was declined', 'Nothing was charged. Try another card.');
      else if (payment?.status === 'pending')
        notify('info', 'Waiting for the payment provider', 'Your balance changes as soon as the payment is confirmed.');
      await reload().catch(() => undefined);
    };
    void check();
    return () => {
      active = false;
    };
  }, [returned, setParams, reload]);

  const pages = data ? Math.max(1, Math.ceil(data.total / data.pageSize)) : 1;
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-bold">Balance and billing</h1>

      <section aria-labelledby="balance-heading" className={card}>
        <h2 id="balance-heading" className="text-lg font-semibold">
          Balance
        </h2>
        <div className="mt-2 flex flex-wrap items-center justify-between gap-3">
          <p className="text-3xl font-bold text-slate-900" data-testid="balance">
            {data ? formatPrice(data.balanceCents) : '…'}
          </p>
          <Button onClick={() => setToppingUp(true)} disabled={info === undefined}>
            Top up
          </Button>
        </div>
        <p className="mt-1 text-sm text-slate-600">Plans and shop items are paid from your balance.</p>
        {data && data.balanceCents < 0 ? (
          <p className="mt-2 rounded-lg bg-amber-50 p-3 text-sm text-amber-900" role="status">
            Your balance is below zero: a top-up was refunded or disputed after its money was spent. Top up to buy again and to keep paid
            plans renewing.
          </p>
        ) : null}
        {data?.pending.length ? <PendingTopups pending={data.pending} /> : null}
      </section>

      <BillingInfoForm info={info} onSaved={setInfo} />

      <section aria-labelledby="history-heading" className={card}>
        <h2 id="history-heading" className="text-lg font-semibold">
          Transactions
        </h2>
        {!data ? (
          <p className="mt-3 text-sm text-slate-600" role="status">
            Loading…
          </p>
        ) : data.entries.length === 0 ? (
          <p className="mt-3 rounded-lg bg-slate-50 p-4 text-sm text-slate-600">No transactions yet. Top up to buy a plan or shop items.</p>
        ) : (
          <ul className="mt-3 divide-y divide-slate-100" data-testid="transactions">
            {data.entries.map((e) => (
              <li key={e.id} className="grid grid-cols-[minmax(0,1fr)_auto] gap-x-3 gap-y-1 py-3 text-sm" data-testid="transaction">
                <span className="min-w-0 break-words font-medium text-slate-900">{e.description}</span>
                <span className={`text-right font-semibold ${e.amountCents >= 0 ? 'text-emerald-700' : 'text-slate-900'}`}>
                  {e.amountCents >= 0 ? '+' : '−'}
                  {formatPrice(Math.abs(e.amountCents))}
                </span>
                <span className="text-xs text-slate-500">
                  {kindNames[e.kind] ?? e.kind} · {new Date(e.createdAt).toLocaleString()} · balance {formatPrice(e.balanceAfterCents)}
                </span>
                <Link to={`/account/receipts/${e.id}`} className="text-right text-xs font-medium text-brand-700 underline">
                  Receipt
                </Link>
              </li>
            ))}
          </ul>
        )}
        {data && pages > 1 ? (
          <nav className="mt-4 flex items-center justify-between gap-3 text-sm" aria-label="Transaction pages">
            <Button variant="secondary" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
              Newer
            </Button>
            <span className="text-slate-600">
              Page {data.page} of {pages}
            </span>
            <Button variant="secondary" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>
              Older
            </Button>
          </nav>
        ) : null}
      </section>

      {toppingUp ? <TopupDialog hasBillingInfo={!!info} onClose={() => setToppingUp(false)} /> : null}
    </div>
  );
}

function PendingTopups({ pending }: { pending: PaymentView[] }) {
  return (
    <div className="mt-3 rounded-lg bg-amber-50 p-3 text-sm text-amber-900" role="status">
      <p className="font-medium">Waiting for payment</p>
      <ul className="mt-1 space-y-1">
        {pending.map((p) => (
          <li key={p.paymentId} className="flex flex-wrap items-center justify-between gap-2">
            <span>
              {formatPrice(p.amountCents)} started {new Date(p.createdAt).toLocaleString()}
            </span>
            {p.checkoutUrl ? (
              <a href={p.checkoutUrl} className="font-medium underline">
                Continue to payment
              </a>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Choose an amount, then pay on the provider's page; the balance changes when the provider confirms. */
function TopupDialog({ hasBillingInfo, onClose }: { hasBillingInfo: boolean; onClose: () => void }) {
  const [amount, setAmount] = useState<string>(String(TOPUP_PRESETS_CENTS[1] / 100));
  const [error, setError] = useState<string>();
  // One key per opened dialog: pressing Pay twice (or a retried request) starts one payment.
  const key = useRef(newIdempotencyKey());
  const cents = Math.round(Number(amount) * 100);
  const valid = /^\d+(\.\d{1,2})?$/.test(amount.trim()) && cents >= TOPUP_MIN_CENTS && cents <= TOPUP_MAX_CENTS;

  async function pay() {
    setError(undefined);
    try {
      const payment = await startTopup(cents, key.current);
      if (payment.checkoutUrl) window.location.assign(payment.checkoutUrl);
    } catch (failure) {
      if (failure instanceof ApiFailure) setError(failure.fields.amountCents ?? failure.message);
    }
  }

  return (
    <Modal title="Top up your balance" onCancel={onClose}>
      {!hasBillingInfo ? (
        <div className="space-y-3 text-sm">
          <p className="text-slate-700">Add your billing information first: every payment gets a receipt made out to it.</p>
          <Button variant="secondary" onClick={onClose}>
            Close
          </Button>
        </div>
      ) : (
        <form
          className="space-y-4"
          onSubmit={(event) => {
            event.preventDefault();
            if (valid) void pay();
          }}
        >
          <fieldset>
            <legend className="text-sm font-medium text-slate-700">Amount</legend>
            <div className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-4">
              {TOPUP_PRESETS_CENTS.map((c) => (
                <button
                  key={c}
                  type="button"
                  aria-pressed={cents === c}
                  onClick={() => setAmount(String(c / 100))}
                  className={`rounded-md border px-3 py-2 text-sm font-semibold ${cents === c ? 'border-brand-600 bg-brand-50 text-brand-700' : 'border-slate-300 text-slate-800'}`}
                >
                  {formatPrice(c)}
                </button>
              ))}
            </div>
          </fieldset>
          <Field
            id="topup-amount"
            label={`Or another amount in USD (${formatPrice(TOPUP_MIN_CENTS)}–${formatPrice(TOPUP_MAX_CENTS)})`}
            inputMode="decimal"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            error={
              amount && !valid ? `Enter an amount from ${formatPrice(TOPUP_MIN_CENTS)} to ${formatPrice(TOPUP_MAX_CENTS)}.` : undefined
            }
          />
          <FormError message={error} />
          <div className="flex flex-wrap justify-end gap-2">
            <Button type="button" variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={!valid}>
              Pay {valid ? formatPrice(cents) : ''}
            </Button>
          </div>
        </form>
      )}
    </Modal>
  );
}

function BillingInfoForm({ info, onSaved }: { info: BillingInfo | null | undefined; onSaved: (info: BillingInfo | null) => void }) {
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
    <section aria-labelledby="billing-heading" className={card}>
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
          <Field
            id="billing-city"
            label="City"
            value={values.city}
            onChange={set('city')}
            error={errors.city}
            autoComplete="address-level2"
          />
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

import { formatPrice, TOPUP_MAX_CENTS, TOPUP_MIN_CENTS, TOPUP_PRESETS_CENTS, type PaymentView } from '@spawnpoint/contracts';
import { useRef, useState } from 'react';
import { ApiFailure } from '../../lib/api.ts';
import { newIdempotencyKey, startTopup } from '../../lib/billing.ts';
import { Button } from '../button.tsx';
import { Field, FormError } from '../field.tsx';
import { Modal } from '../modal.tsx';

/** Top-ups started and not yet confirmed by the provider, each with its way back to the payment page. */
export function PendingTopups({ pending }: { pending: PaymentView[] }) {
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
export function TopupDialog({ hasBillingInfo, onClose }: { hasBillingInfo: boolean; onClose: () => void }) {
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

import { endpoints, formatPrice } from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { BillingInfoForm } from '../components/billing/billing-info-form.tsx';
import { PendingTopups, TopupDialog } from '../components/billing/topup-dialog.tsx';
import { TransactionHistory } from '../components/billing/transaction-history.tsx';
import { Button } from '../components/button.tsx';
import { CARD_CLASS } from '../components/styles.ts';
import { getTopup } from '../lib/billing.ts';
import { pageMeta } from '../lib/meta.ts';
import { notify } from '../lib/toasts.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';

export const meta = () => pageMeta('account-billing', 'Your Spawnpoint balance, top-ups, billing information and receipts.');

export default function AccountBilling() {
  const [page, setPage] = useState(1);
  const transactions = useEndpoint(endpoints.transactions, { query: { page } }, { keepPrevious: true });
  const data = transactions.load.status === 'ready' ? transactions.load.data : null;
  const billingInfo = useEndpoint(endpoints.billingInfo, {});
  // undefined while it loads; null when none is saved (or it could not be read: the form then starts empty).
  const info =
    billingInfo.load.status === 'ready' ? billingInfo.load.data.billingInfo : billingInfo.load.status === 'failed' ? null : undefined;
  const [toppingUp, setToppingUp] = useState(false);
  const [params, setParams] = useSearchParams();

  const { reload } = transactions;

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
      await reload();
    };
    void check();
    return () => {
      active = false;
    };
  }, [returned, setParams, reload]);

  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-bold">Balance and billing</h1>

      <section aria-labelledby="balance-heading" className={CARD_CLASS}>
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

      <BillingInfoForm info={info} onSaved={(saved) => billingInfo.set({ billingInfo: saved })} />

      <TransactionHistory load={transactions.load} page={page} setPage={setPage} />

      {toppingUp ? <TopupDialog hasBillingInfo={!!info} onClose={() => setToppingUp(false)} /> : null}
    </div>
  );
}

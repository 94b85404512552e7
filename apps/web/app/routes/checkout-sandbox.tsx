import { endpoints, formatPrice } from '@spawnpoint/contracts';
import { Link, useNavigate, useParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { completeSandbox } from '../lib/billing.ts';
import { pageMeta } from '../lib/meta.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';

export const meta = () => pageMeta('checkout-sandbox', 'The sandbox payment page of a development Spawnpoint.');

/**
 * The embedded payment provider's checkout page (PAYMENT_PROVIDER=sandbox, never in production): it stands
 * where Stripe's page would, and its buttons are what the provider would report — paid, declined, left.
 */
export default function CheckoutSandbox() {
  const { paymentId = '' } = useParams();
  const navigate = useNavigate();
  const read = useEndpoint(endpoints.topup, { params: { paymentId } }, { failureMessage: 'This payment could not be loaded.' });
  const payment = read.load.status === 'ready' ? read.load.data : null;
  const failed =
    read.load.status !== 'failed'
      ? null
      : read.load.failure?.code === 'NOT_FOUND'
        ? 'There is no such payment in your account. Start a top-up from the Billing page.'
        : read.load.message;

  const finish = async (outcome: 'pay' | 'decline' | 'abandon') => {
    await completeSandbox(paymentId, outcome);
    // Back to the site as a provider sends the payer back; the billing page says what happened.
    await navigate(`/account/billing?topup=${paymentId}`);
  };

  return (
    <div className="mx-auto w-full max-w-md px-4 py-10">
      <div className="rounded-xl border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900" role="note">
        Sandbox payments: this development copy of Spawnpoint takes no real cards and moves no real money.
      </div>
      <section className="mt-4 rounded-xl border border-slate-200 bg-white p-6" aria-labelledby="checkout-heading">
        <h1 id="checkout-heading" className="text-xl font-bold">
          Pay Spawnpoint
        </h1>
        {failed ? (
          <p className="mt-3 text-sm text-red-700" role="alert">
            {failed}
          </p>
        ) : !payment ? (
          <p className="mt-3 text-sm text-slate-600" role="status">
            Loading…
          </p>
        ) : payment.status !== 'pending' ? (
          <div className="mt-3 space-y-3 text-sm">
            <p>This payment is {payment.status === 'succeeded' ? 'paid' : payment.status}.</p>
            <Link to="/account/billing" className="font-medium text-brand-700 underline">
              Back to billing
            </Link>
          </div>
        ) : (
          <>
            <p className="mt-2 text-sm text-slate-600">Balance top-up</p>
            <p className="mt-1 text-3xl font-bold" data-testid="checkout-amount">
              {formatPrice(payment.amountCents)}
            </p>
            <div className="mt-6 grid gap-2">
              <Button onClick={() => finish('pay')}>Pay {formatPrice(payment.amountCents)}</Button>
              <Button variant="secondary" onClick={() => finish('decline')}>
                Decline (a refused card)
              </Button>
              <Button variant="secondary" onClick={() => finish('abandon')}>
                Cancel and go back
              </Button>
            </div>
          </>
        )}
      </section>
    </div>
  );
}

import { endpoints, formatPrice } from '@spawnpoint/contracts';
import { Link, useParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { pageMeta } from '../lib/meta.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';

export const meta = () => pageMeta('account-receipt', 'A receipt of your Spawnpoint balance.');

/** One ledger row as a receipt: printable (the browser's Print, or Save as PDF). */
export default function AccountReceipt() {
  const { entryId = '' } = useParams();
  const read = useEndpoint(endpoints.receipt, { params: { entryId } }, { failureMessage: 'The receipt could not be loaded.' });
  const receipt = read.load.status === 'ready' ? read.load.data : null;
  const failed =
    read.load.status !== 'failed'
      ? null
      : read.load.failure?.code === 'NOT_FOUND'
        ? 'There is no such receipt in your account.'
        : read.load.message;
  if (failed || !receipt)
    return (
      <div className="space-y-4">
        <h1 className="text-2xl font-bold">Receipt</h1>
        {failed ? (
          <p className="rounded-xl border border-slate-200 bg-white p-6 text-sm text-red-700" role="alert">
            {failed}{' '}
            <Link to="/account/billing" className="font-medium underline">
              See your transactions
            </Link>
          </p>
        ) : (
          <p className="text-sm text-slate-600" role="status">
            Loading the receipt…
          </p>
        )}
      </div>
    );
  const { entry } = receipt;
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-3 print:hidden">
        <Link to="/account/billing" className="text-sm font-medium text-brand-700 underline">
          Back to billing
        </Link>
        <Button variant="secondary" onClick={() => window.print()}>
          Print
        </Button>
      </div>
      <article className="rounded-xl border border-slate-200 bg-white p-6 text-sm" aria-labelledby="receipt-heading" data-testid="receipt">
        <header className="flex flex-wrap items-start justify-between gap-4">
          <div>
            <h1 id="receipt-heading" className="text-2xl font-bold">
              Receipt {receipt.receiptNumber}
            </h1>
            <p className="text-slate-600">{new Date(entry.createdAt).toLocaleString()}</p>
          </div>
          <p className="font-semibold text-slate-900">Spawnpoint</p>
        </header>
        <div className="mt-6 grid gap-6 sm:grid-cols-2">
          <div>
            <h2 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">
              {entry.amountCents < 0 ? 'Billed to' : 'Credited to'}
            </h2>
            {receipt.billedTo.length ? (
              <address className="mt-1 not-italic text-slate-800">
                {receipt.billedTo.map((line, i) => (
                  <span key={i} className="block break-words">
                    {line}
                  </span>
                ))}
              </address>
            ) : (
              <p className="mt-1 text-slate-600">No billing information was given when this was recorded.</p>
            )}
          </div>
          {receipt.paymentReference ? (
            <div>
              <h2 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">Payment</h2>
              <p className="mt-1 break-all text-slate-800">{receipt.paymentReference}</p>
            </div>
          ) : null}
        </div>
        <table className="mt-6 w-full text-left">
          <thead>
            <tr className="border-b border-slate-200 text-xs text-slate-500 uppercase">
              <th className="py-2 font-semibold">Description</th>
              <th className="py-2 text-right font-semibold">Amount</th>
            </tr>
          </thead>
          <tbody>
            <tr className="border-b border-slate-100">
              <td className="py-2 break-words">{entry.description}</td>
              <td className="py-2 text-right font-semibold">
                {entry.amountCents >= 0 ? '' : '−'}
                {formatPrice(Math.abs(entry.amountCents))}
              </td>
            </tr>
          </tbody>
        </table>
        <p className="mt-4 text-right text-slate-600">Balance after: {formatPrice(entry.balanceAfterCents)}</p>
      </article>
    </div>
  );
}

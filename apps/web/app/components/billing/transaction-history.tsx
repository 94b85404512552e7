import { formatPrice, type TransactionsResult } from '@spawnpoint/contracts';
import { Link } from 'react-router';
import type { EndpointLoad } from '../../lib/use-endpoint.ts';
import { Button } from '../button.tsx';
import { EndpointView } from '../endpoint-view.tsx';
import { CARD_CLASS } from '../styles.ts';

const kindNames: Record<string, string> = {
  topup: 'Top-up',
  plan: 'Plan',
  renewal: 'Renewal',
  shop: 'Shop',
  refund: 'Refund',
  commission: 'Commission',
  adjustment: 'Adjustment',
};

/** The ledger, newest first, a page at a time, each row with its receipt. */
export function TransactionHistory({
  load,
  page,
  setPage,
}: {
  load: EndpointLoad<TransactionsResult>;
  page: number;
  setPage: (change: (page: number) => number) => void;
}) {
  return (
    <section aria-labelledby="history-heading" className={CARD_CLASS}>
      <h2 id="history-heading" className="text-lg font-semibold">
        Transactions
      </h2>
      <EndpointView load={load} loading="Loading…" className="mt-3">
        {(data) => <Entries data={data} page={page} setPage={setPage} />}
      </EndpointView>
    </section>
  );
}

function Entries({ data, page, setPage }: { data: TransactionsResult; page: number; setPage: (change: (page: number) => number) => void }) {
  const pages = Math.max(1, Math.ceil(data.total / data.pageSize));
  return (
    <>
      {data.entries.length === 0 ? (
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
    </>
  );
}

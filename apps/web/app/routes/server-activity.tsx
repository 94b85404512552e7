import { endpoints, serverActivityLabels, type ServerActivityEntry } from '@spawnpoint/contracts';
import { useState } from 'react';
import { useParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { EndpointView } from '../components/endpoint-view.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { call } from '../lib/api.ts';
import { pageMeta } from '../lib/meta.ts';
import { relativeTime } from '../lib/relative-time.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-activity', 'Who did what on your Minecraft server, and when.');

interface Log {
  entries: ServerActivityEntry[];
  next: string | null;
}

export default function ServerActivity() {
  const { id = '' } = useParams();
  // A fresh page per server: one server's entries never show under another's name.
  return <ActivityPage key={id} id={id} />;
}

function ActivityPage({ id }: { id: string }) {
  const load = useServer(id);
  const mayRead = load.status === 'ready' && load.server.permissions.includes('activity.read');
  const first = useEndpoint(
    endpoints.serverActivity,
    { params: { serverId: id }, query: {} },
    { enabled: mayRead, failureMessage: 'The activity log could not be loaded. Please reload the page.' },
  );
  // Older pages, asked with "Load more", follow the first page they were asked after (`after`); a first
  // page read again starts without them.
  const [older, setOlder] = useState<{ after: Log; log: Log } | null>(null);

  const loadMore = async (first: Log, log: Log) => {
    if (!log.next) return;
    const page = await call(endpoints.serverActivity, { params: { serverId: id }, query: { before: log.next } });
    const before = older?.after === first ? older.log.entries : [];
    setOlder({ after: first, log: { entries: [...before, ...page.entries], next: page.next } });
  };

  return (
    <ServerShell serverId={id} load={load}>
      {load.status === 'ready' && !mayRead ? (
        <p className="rounded-xl border border-slate-200 bg-white p-6 text-slate-600">Your role does not include the activity log.</p>
      ) : (
        <section aria-labelledby="activity-heading" className="max-w-3xl rounded-xl border border-slate-200 bg-white p-4 sm:p-6">
          <h2 id="activity-heading" className="text-lg font-semibold">
            Activity
          </h2>
          <p className="mt-1 text-sm text-slate-600">Who started, stopped or changed this server, newest first.</p>
          <EndpointView load={first.load} loading="Loading the activity log…" className="mt-4">
            {(page) => {
              const more = older?.after === page ? older.log : null;
              const log: Log = more ? { entries: [...page.entries, ...more.entries], next: more.next } : page;
              return log.entries.length === 0 ? (
                <p className="mt-4 rounded-lg bg-slate-50 p-4 text-sm text-slate-600" data-testid="activity-empty">
                  Nothing has happened on this server yet. Starts and stops, console commands, file changes, backups and changes to members
                  will show here.
                </p>
              ) : (
                <>
                  <ol className="mt-4 divide-y divide-slate-100" data-testid="server-activity">
                    {log.entries.map((entry) => (
                      <ActivityRow key={entry.id} entry={entry} />
                    ))}
                  </ol>
                  {log.next ? (
                    <Button variant="secondary" className="mt-4 w-full sm:w-auto" onClick={() => loadMore(page, log)}>
                      Load more
                    </Button>
                  ) : (
                    <p className="mt-4 text-xs text-slate-500">That is everything.</p>
                  )}
                </>
              );
            }}
          </EndpointView>
        </section>
      )}
    </ServerShell>
  );
}

function ActivityRow({ entry }: { entry: ServerActivityEntry }) {
  const when = new Date(entry.createdAt);
  return (
    <li className="grid gap-1 py-3 text-sm">
      <div className="flex flex-wrap items-baseline justify-between gap-x-3">
        <span className="font-medium text-slate-900">{serverActivityLabels[entry.action]}</span>
        <time dateTime={entry.createdAt} title={when.toLocaleString()} className="text-xs whitespace-nowrap text-slate-500">
          {relativeTime(entry.createdAt)}
        </time>
      </div>
      {entry.target ? <code className="rounded bg-slate-50 px-1.5 py-0.5 text-xs break-all text-slate-700">{entry.target}</code> : null}
      <span className="text-xs break-all text-slate-500">
        by{' '}
        {entry.actor.emailAddress ||
          (entry.action === 'schedule.run' || entry.action === 'schedule.failed' ? 'a schedule' : 'a deleted account')}
        {entry.ip ? ` · ${entry.ip}` : ''}
      </span>
    </li>
  );
}

import { endpoints, type ServerSchedule } from '@spawnpoint/contracts';
import { useState } from 'react';
import { useParams } from 'react-router';
import { EndpointView } from '../components/endpoint-view.tsx';
import { ScheduleForm } from '../components/schedules/schedule-form.tsx';
import { ScheduleRow } from '../components/schedules/schedule-row.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { CARD_CLASS } from '../components/styles.ts';
import { pageMeta } from '../lib/meta.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-schedules', 'Back up, restart or run commands on your Minecraft server on a schedule.');

export default function ServerSchedulesPage() {
  const { id = '' } = useParams();
  return <SchedulesPage key={id} id={id} />;
}

function SchedulesPage({ id }: { id: string }) {
  const load = useServer(id);
  const mayManage = load.status === 'ready' && load.server.permissions.includes('schedules.manage');
  const schedules = useEndpoint(
    endpoints.schedules,
    { params: { serverId: id } },
    { enabled: mayManage, failureMessage: 'The schedules could not be loaded. Please reload the page.' },
  );
  const [editing, setEditing] = useState<ServerSchedule | null>(null);
  const reload = async () => {
    await schedules.reload();
  };

  return (
    <ServerShell serverId={id} load={load}>
      {load.status === 'ready' && !mayManage ? (
        <p className="rounded-xl border border-slate-200 bg-white p-6 text-slate-600">
          Only the owner and administrators manage schedules.
        </p>
      ) : (
        <div className="grid max-w-3xl gap-6">
          <ScheduleForm
            key={editing?.scheduleId ?? 'new'}
            serverId={id}
            editing={editing}
            onDone={async () => {
              setEditing(null);
              await reload();
            }}
          />
          <section aria-labelledby="schedules-heading" className={CARD_CLASS}>
            <h2 id="schedules-heading" className="text-lg font-semibold">
              Schedules
            </h2>
            <EndpointView load={schedules.load} loading="Loading schedules…" className="mt-3">
              {({ schedules: list }) =>
                list.length === 0 ? (
                  <p className="mt-3 rounded-lg bg-slate-50 p-4 text-sm text-slate-600" data-testid="schedules-empty">
                    No schedules yet. Add one above: a nightly backup and a daily restart keep most servers healthy.
                  </p>
                ) : (
                  <ul className="mt-3 divide-y divide-slate-100" data-testid="schedules">
                    {list.map((s) => (
                      <ScheduleRow key={s.scheduleId} serverId={id} schedule={s} onEdit={() => setEditing(s)} onChanged={reload} />
                    ))}
                  </ul>
                )
              }
            </EndpointView>
          </section>
        </div>
      )}
    </ServerShell>
  );
}

import { Link, useMatches, useParams } from 'react-router';
import { buttonClass } from '../components/button.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { routeByName } from '../lib/navigation.ts';
import { useServer } from '../lib/use-server.ts';

export function meta({ matches }: { matches: ({ id: string } | undefined)[] }) {
  const title = routeByName(matches[matches.length - 1]?.id)?.title ?? 'Spawnpoint';
  return [{ title: `${title} · Spawnpoint` }, { name: 'description', content: `${title} on Spawnpoint is being built.` }];
}

// What each server tab will do, so the page says what is coming instead of only "coming soon".
const serverTabs: Record<string, string> = {
  'servers-id-plugins':
    "Install plugins from a catalogue that fits your server's software and version, keep them up to date, and remove them.",
  'servers-id-subusers': 'Invite friends as viewers, moderators or administrators, each with only the access you give them.',
  'servers-id-shop': 'Buy server icons, extra backup slots and more disk for this server.',
};

/** An honest placeholder for a route whose issue has not landed; its guard and layout are already real. */
export default function ComingSoon() {
  const matches = useMatches();
  const name = matches[matches.length - 1]?.id ?? '';
  const route = routeByName(name);
  const serverTab = serverTabs[name];
  if (serverTab) return <ServerTabComingSoon title={route?.title ?? 'This tab'} text={serverTab} />;
  return (
    <section className="mx-auto max-w-xl px-4 py-24 text-center">
      <p className="text-sm font-semibold uppercase tracking-wide text-brand-700">Coming soon</p>
      <h1 className="mt-2 text-3xl font-bold">{route?.title ?? 'This page'}</h1>
      <p className="mt-3 text-slate-600">We are still building this part of Spawnpoint. It will appear here as soon as it is ready.</p>
      <Link to="/" className={buttonClass('secondary', 'mt-8')}>
        Back to the home page
      </Link>
    </section>
  );
}

/** A server tab not built yet keeps the server's header and tabs, and says what it will do. */
function ServerTabComingSoon({ title, text }: { title: string; text: string }) {
  const { id = '' } = useParams();
  const load = useServer(id);
  return (
    <ServerShell serverId={id} load={load}>
      <section aria-labelledby="coming-heading" className="rounded-xl border border-dashed border-slate-300 bg-white p-6">
        <p className="text-sm font-semibold uppercase tracking-wide text-brand-700">Coming soon</p>
        <h2 id="coming-heading" className="mt-1 text-xl font-bold">
          {title}
        </h2>
        <p className="mt-2 text-slate-600">{text}</p>
        <p className="mt-2 text-slate-600">It is being built; this tab will offer it as soon as it is ready.</p>
      </section>
    </ServerShell>
  );
}

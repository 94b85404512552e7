import { Link, useMatches } from 'react-router';
import { buttonClass } from '../components/button.tsx';
import { routeByName } from '../lib/navigation.ts';

export function meta({ matches }: { matches: ({ id: string } | undefined)[] }) {
  const title = routeByName(matches[matches.length - 1]?.id)?.title ?? 'Spawnpoint';
  return [{ title: `${title} · Spawnpoint` }, { name: 'description', content: `${title} on Spawnpoint is being built.` }];
}

/** An honest placeholder for a route whose issue has not landed; its guard and layout are already real. */
export default function ComingSoon() {
  const matches = useMatches();
  const route = routeByName(matches[matches.length - 1]?.id);
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

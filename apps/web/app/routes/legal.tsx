import { legal } from '../lib/content.server.ts';
import { pageMeta } from '../lib/meta.ts';
import type { Route } from './+types/legal';

const pages = ['terms-of-service', 'privacy-policy', 'cookie-policy'] as const;

export function loader({ request }: Route.LoaderArgs) {
  const name = pages.find((p) => new URL(request.url).pathname.replace(/\/$/, '') === `/${p}`) ?? 'terms-of-service';
  return { name, ...legal(name) };
}

export function meta({ loaderData }: Route.MetaArgs) {
  if (!loaderData) return [];
  return pageMeta(
    loaderData.name,
    `The ${loaderData.title.toLowerCase()} of Spawnpoint, the Minecraft server host. Effective ${loaderData.effective}.`,
  );
}

export default function Legal({ loaderData }: Route.ComponentProps) {
  return (
    <main className="mx-auto max-w-3xl px-4 py-12">
      <h1 className="text-4xl font-extrabold">{loaderData.title}</h1>
      <p className="mt-2 text-sm text-slate-500">
        Effective {new Date(`${loaderData.effective}T12:00:00Z`).toLocaleDateString('en-US', { dateStyle: 'long' })}
      </p>
      <div className="prose-content mt-8" dangerouslySetInnerHTML={{ __html: loaderData.html }} />
    </main>
  );
}

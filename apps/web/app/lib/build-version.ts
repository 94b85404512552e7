import { RELOAD_GUARD_MS } from '@spawnpoint/contracts';
import { z } from 'zod';
import { settings } from './settings.ts';

const GUARD_KEY = 'spawnpoint:reload-guard';
const CHECK_EVERY_MS = 60_000;
const latestBuild = z.object({ id: z.string() });
let lastCheck = 0;

/** Full reload at most once per path per 10 s, so a broken deployment cannot loop the page. */
export function guardedReload(path: string = location.pathname + location.search): boolean {
  try {
    const guard = z.object({ path: z.string(), expires: z.number() }).safeParse(JSON.parse(sessionStorage.getItem(GUARD_KEY) ?? 'null'));
    if (guard.success && guard.data.path === path && guard.data.expires > Date.now()) return false;
    sessionStorage.setItem(GUARD_KEY, JSON.stringify({ path, expires: Date.now() + RELOAD_GUARD_MS }));
  } catch {
    // Without session storage there is no guard; reloading once is still right.
  }
  location.reload();
  return true;
}

/** On navigation: a newer deployed build id means this tab runs stale code, so reload. */
export async function checkForNewBuild(): Promise<void> {
  if (Date.now() - lastCheck < CHECK_EVERY_MS) return;
  lastCheck = Date.now();
  try {
    const response = await fetch(`/builds/latest.json?t=${Date.now()}`, { cache: 'no-store' });
    if (!response.ok) return;
    const latest = latestBuild.safeParse(await response.json());
    if (latest.success && latest.data.id !== settings.buildId) guardedReload();
  } catch (error) {
    console.warn('build manifest check failed', error);
  }
}

import { SOCKETS_PER_SESSION_MAX } from '@spawnpoint/contracts';
import { expect, test, type Page } from '@playwright/test';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

/**
 * The page's live connections: how many it opened (Engine.IO handshakes: a polling request without a
 * session id), and a promise that resolves once `auth:success` arrived — over the WebSocket or, before the
 * upgrade, in a long-poll's answer.
 */
function liveSockets(page: Page): { opened: () => number; authenticated: Promise<void> } {
  let opened = 0;
  let done = () => undefined as void;
  const authenticated = new Promise<void>((resolve) => (done = resolve));
  const saysLive = (text: string) => text.includes('"auth:success"') && done();
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/socket.io/') && url.searchParams.get('transport') === 'polling' && !url.searchParams.has('sid')) opened++;
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.pathname.startsWith('/socket.io/') && response.request().method() === 'GET')
      void response.text().then(saysLive, () => undefined);
  });
  page.on('websocket', (ws) => ws.on('framereceived', (frame) => saysLive(String(frame.payload))));
  return { opened: () => opened, authenticated };
}

test('a tab holds one live connection; past the sign-in’s limit a tab says live updates are paused, and catches up once another closes', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  await verifiedAccount(page, 'tabs');
  const base = await createServerThroughForm(page, uniqueName('tabs-', 6));

  // Every tab takes one of the sign-in's live slots, not two (the root and the page both start the socket);
  // this first tab holds one already.
  const tabs: Page[] = [page];
  for (let i = 1; i < SOCKETS_PER_SESSION_MAX; i++) {
    const tab = await context.newPage();
    const sockets = liveSockets(tab);
    await tab.goto(base);
    await sockets.authenticated;
    expect(sockets.opened(), `tab ${i + 1}`).toBe(1);
    await expect(tab.getByText('Live updates are paused')).toHaveCount(0);
    tabs.push(tab);
  }

  // One more: refused by the API, and it says so — not "Reconnecting…" forever.
  const extra = await context.newPage();
  await extra.goto(base);
  const paused = extra.getByRole('status').filter({ hasText: 'Live updates are paused in this tab.' });
  await expect(paused).toBeVisible();
  await expect(paused).toContainText(`${SOCKETS_PER_SESSION_MAX} tabs or windows of this sign-in are live already`);
  await expect(extra.getByText('Connection lost.')).toHaveCount(0);
  await expect(extra.getByText('Last known values — not live while live updates are paused in this tab.')).toBeVisible();
  await extra.setViewportSize({ width: 360, height: 800 });
  await extra.screenshot({ path: test.info().outputPath('tabs-paused-360.png') });
  expect(await extra.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);

  // Another tab closes: this one gets in by itself and the notice goes.
  await tabs[0]!.close();
  await expect(paused).toHaveCount(0, { timeout: 30_000 });
  await expect(extra.getByText('Connection lost.')).toHaveCount(0);
  await expect(extra.getByText(/Last known values/)).toHaveCount(0);
});

import { expect, test } from '@playwright/test';
import mineflayer from 'mineflayer';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

test('create a server, start it, join it with a real client, talk through the console, stop it', async ({ page }) => {
  test.setTimeout(120_000);
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  await verifiedAccount(page, 'game');
  const name = uniqueName('e2e-', 8);

  await page.getByRole('link', { name: 'Create your first server' }).click();
  await expect(page).toHaveURL(/\/servers\/create$/);
  await page.getByLabel('Server name').fill(name);
  await expect(page.getByText(`${name} is available.`)).toBeVisible();
  await expect(page.getByLabel('Minecraft version')).toHaveValue('1.21.4');
  await page.getByRole('button', { name: 'Create server' }).click();

  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page).not.toHaveURL(/\/create$/);
  await expect(page.getByTestId('server-state')).toHaveText('Offline');
  const direct = await page.getByRole('button', { name: /^Direct address: / }).getAttribute('aria-label');
  const port = Number(/:(\d+)\. Copy$/.exec(direct ?? '')?.[1]);
  expect(port).toBeGreaterThan(0);

  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Online', { timeout: 30_000 });

  await page.getByRole('link', { name: 'Open the console' }).click();
  await expect(page).toHaveURL(/\/console$/);
  const consoleOutput = page.getByTestId('console-output');
  await expect(consoleOutput).toContainText('Done! The server is ready for players.');

  const bot = mineflayer.createBot({ host: '127.0.0.1', port, username: 'E2EBot', auth: 'offline', version: '1.21.4' });
  const heard: string[] = [];
  bot.on('messagestr', (message: string) => {
    heard.push(message);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      bot.once('spawn', () => resolve());
      bot.once('error', reject);
      bot.once('kicked', (reason: string) => reject(new Error(`kicked: ${reason}`)));
    });
    await expect(consoleOutput).toContainText(/E2EBot \([\d.]+\) connected/);
    bot.chat('hello from the bot');
    await expect(consoleOutput).toContainText('<E2EBot> hello from the bot');

    const input = page.getByLabel('Command');
    await input.fill('say hello from the dashboard');
    await input.press('Enter');
    await expect(input).toHaveValue('');
    await expect.poll(() => heard.some((m) => m.includes('hello from the dashboard'))).toBe(true);
    await expect(consoleOutput).toContainText('[Server] hello from the dashboard');

    // Up brings the last command back, after a reload too; the output is replayed.
    await input.press('ArrowUp');
    await expect(input).toHaveValue('say hello from the dashboard');
    await page.reload();
    await expect(consoleOutput).toContainText('[Server] hello from the dashboard');
    await page.getByLabel('Command').press('ArrowUp');
    await expect(page.getByLabel('Command')).toHaveValue('say hello from the dashboard');

    // A command sent the moment the page opens, its live connection perhaps still signing in, goes through.
    await page.reload();
    await page.getByLabel('Command').fill('say sent as the page opened');
    await page.getByLabel('Command').press('Enter');
    await expect.poll(() => heard.some((m) => m.includes('sent as the page opened'))).toBe(true);
    await expect(page.getByText('Not connected')).toHaveCount(0);
  } finally {
    bot.quit();
  }

  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Offline', { timeout: 30_000 });
  await expect(consoleOutput).toContainText('The server stopped.');
  // Creating (with its confetti), the console and the server page all run under the CSP.
  expect(cspViolations).toEqual([]);
});

test('the server list shows the new server with its address and live state', async ({ page }) => {
  test.setTimeout(90_000);
  await verifiedAccount(page, 'list');
  const name = uniqueName('l-', 8);
  await createServerThroughForm(page, name);

  await page.getByRole('link', { name: 'Servers', exact: true }).first().click();
  const card = page.getByTestId('server-card').filter({ hasText: name });
  await expect(card).toBeVisible();
  await expect(card.getByRole('button', { name: new RegExp(`^Join address: ${name}\\.`) })).toBeVisible();
  await card.getByRole('button', { name: 'Start' }).click();
  await expect(card.getByTestId('server-state')).toHaveText('Online', { timeout: 30_000 });
  await card.getByRole('button', { name: 'Stop' }).click();
  await expect(card.getByTestId('server-state')).toHaveText('Offline', { timeout: 30_000 });

  // The name is now taken for everyone.
  await page.goto('/servers/create');
  await page.getByLabel('Server name').fill(name);
  await expect(page.getByText('This name is already in use.')).toBeVisible();

  // A second server is the most a free account owns: the form says so before anything is typed.
  const second = await page.request.post('/v1/server/create', { data: { serverName: `${name}-2` } });
  expect(((await second.json()) as { status: string }).status).toBe('SUCCESS');
  await page.goto('/servers');
  await expect(page.getByTestId('server-card')).toHaveCount(2);
  await page.goto('/servers/create');
  await expect(page.getByRole('status').filter({ hasText: 'An account can own at most 2 servers. Delete one' })).toBeVisible();
  await page.getByLabel('Server name').fill(`${name}-3`);
  await expect(page.getByRole('button', { name: 'Create server' })).toBeDisabled();
});

test('an owner lists a server publicly and a visitor finds it on the server list', async ({ page, browser }) => {
  test.setTimeout(90_000);
  await verifiedAccount(page, 'public');
  const name = uniqueName('p-', 8);
  await createServerThroughForm(page, name);
  const direct = await page.getByRole('button', { name: /^Direct address: / }).getAttribute('aria-label');
  const address = /: (\S+:\d+)\. Copy$/.exec(direct ?? '')?.[1] ?? '';

  const toggle = page.getByRole('checkbox', { name: /Show on the public server list/ });
  await expect(toggle).not.toBeChecked();
  await toggle.check();
  await expect(page.getByText('Listed publicly')).toBeVisible();

  const joinAddress = await page.getByRole('button', { name: /^Join address: / }).getAttribute('aria-label');
  const byName = /: (\S+)\. Copy$/.exec(joinAddress ?? '')?.[1] ?? '';

  const visitor = await browser.newContext();
  const other = await visitor.newPage();
  await other.goto('/server-list');
  // Searched by part of its name (the list of a busy host runs to many pages).
  await other.getByLabel('Search by name').fill(name.slice(0, -2));
  await expect(other).toHaveURL(new RegExp(`q=${name.slice(0, -2)}`));
  const card = other.getByTestId('public-servers').getByRole('listitem').filter({ hasText: name });
  await expect(card).toBeVisible();
  await expect(card.getByTestId('server-state')).toHaveText('Offline');
  // The MOTD as the game's list draws it, and the name address (a join proxy runs: joining starts it).
  await expect(card.getByTestId('preview-line-1')).toHaveText(`${name} on Spawnpoint`);
  await expect(card.getByRole('button', { name: `Address of ${name}: ${byName}. Copy` })).toBeVisible();
  await other.getByLabel('Software').selectOption('paper');
  await expect(other.getByText('No server matches')).toBeVisible();
  await other.getByLabel('Software').selectOption('flying-squid');
  await expect(card).toBeVisible();
  // The owner starts it: the visitor's card follows live, without a reload.
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(card.getByTestId('server-state')).toHaveText('Online', { timeout: 30_000 });
  await other.setViewportSize({ width: 360, height: 800 });
  expect(await other.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
  await other.screenshot({ path: test.info().outputPath('server-list-360.png'), fullPage: true });
  await other.setViewportSize({ width: 1280, height: 800 });
  await other.screenshot({ path: test.info().outputPath('server-list-1280.png'), fullPage: true });

  // Its public page shows the same entry, the direct address for those without the name, and how to join.
  await card.getByRole('link', { name }).click();
  await expect(other).toHaveURL(new RegExp(`/server-list/${name}$`));
  // Loaded directly, a listed server's page answers 200 (a name nobody lists answers 404).
  expect((await other.request.get(`/server-list/${name}`)).status()).toBe(200);
  await expect(other.getByRole('heading', { level: 1, name })).toBeVisible();
  await expect(other.getByTestId('preview-line-1')).toHaveText(`${name} on Spawnpoint`);
  await expect(other.getByText('Join: it is running now.')).toBeVisible();
  await expect(other.getByRole('button', { name: `Direct address: ${address}. Copy` })).toBeVisible();
  await visitor.close();

  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Offline', { timeout: 30_000 });
  await toggle.uncheck();
  await expect(page.getByText('Hidden from the list')).toBeVisible();
  await page.goto('/server-list');
  await expect(page.getByRole('heading', { level: 1, name: 'Server list' })).toBeVisible();
  await expect(page.getByText(name, { exact: true })).toHaveCount(0);
});

test('a lost live connection shows a banner and marks live values stale until it is back', async ({ page }) => {
  await verifiedAccount(page, 'lost');
  const base = await createServerThroughForm(page, uniqueName('lost-', 6));
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Online', { timeout: 30_000 });

  // From here the network between this tab and the product's socket is cut and restored at will (HTTP
  // polling and WebSocket); the page is loaded again so its socket goes through these routes.
  let cut = false;
  const open: { close(): Promise<void> }[] = [];
  await page.route(/\/socket\.io\//, (route) => (cut ? route.abort('internetdisconnected') : route.continue()));
  let upgraded = false;
  await page.routeWebSocket(/\/socket\.io\//, (ws) => {
    if (cut) {
      void ws.close();
      return;
    }
    const server = ws.connectToServer();
    ws.onMessage((message) => {
      // "5" is Engine.IO's upgrade packet: from then on the live connection runs over this WebSocket only.
      // Cut before it, a long-poll already under way would hold the old transport open until the ping
      // timeout, so the cut would be noticed only after 20 s or more.
      if (message === '5') upgraded = true;
      server.send(message);
    });
    open.push(ws);
  });
  await page.reload();
  await expect(page.getByTestId('server-state')).toHaveText('Online');
  await expect.poll(() => upgraded).toBe(true);
  const banner = page.getByRole('status').filter({ hasText: 'Connection lost.' });
  await expect(banner).toHaveCount(0);

  cut = true;
  await Promise.all(open.splice(0).map((ws) => ws.close()));
  await expect(banner).toBeVisible();
  await expect(page.getByText('Last known values — not live while the connection is lost.')).toBeVisible();
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: 800 });
    await expect(banner).toBeVisible();
    await page.screenshot({ path: test.info().outputPath(`connection-lost-${width}.png`) });
  }

  cut = false;
  // The socket tries again after at most 7.5 s (reconnectionDelayMax with its randomization), then gets a
  // fresh token and authenticates: on a busy machine that can take longer than the default wait.
  await expect(banner).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByText('Last known values — not live while the connection is lost.')).toHaveCount(0);
  await page.getByRole('button', { name: 'Kill' }).click();
  void base;
});

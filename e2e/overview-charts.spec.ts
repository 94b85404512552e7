import { defaultSkinOf, offlineUuid } from '@spawnpoint/contracts';
import { expect, test } from '@playwright/test';
import mineflayer from 'mineflayer';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

test('the overview charts keep the last minutes across a reload, with units, times and player heads', async ({ page }) => {
  test.setTimeout(120_000);
  await verifiedAccount(page, 'charts');
  const base = await createServerThroughForm(page, uniqueName('charts-', 8));
  const direct = await page.getByRole('button', { name: /^Direct address: / }).getAttribute('aria-label');
  const port = Number(/:(\d+)\. Copy$/.exec(direct ?? '')?.[1]);
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Online', { timeout: 30_000 });

  const bot = mineflayer.createBot({ host: '127.0.0.1', port, username: 'E2EBot', auth: 'offline', version: '1.21.4' });
  try {
    await new Promise<void>((resolve, reject) => {
      bot.once('spawn', () => resolve());
      bot.once('error', reject);
    });
    const cpu = page.getByTestId('chart-cpu').getByRole('img');
    // A few samples drawn live (the node reports every 2 s).
    await expect(cpu).toHaveAttribute('data-samples', /^([3-9]|\d\d+)$/, { timeout: 30_000 });
    const before = Number(await cpu.getAttribute('data-oldest'));
    expect(before).toBeGreaterThan(0);

    await page.reload();
    // The charts start from the API's history, not empty: the oldest point is from before the reload.
    await expect(cpu).toHaveAttribute('data-samples', /^([3-9]|\d\d+)$/);
    expect(Number(await cpu.getAttribute('data-oldest'))).toBeLessThanOrEqual(before);
    await expect(cpu).toHaveAccessibleName(/^CPU over the last 10 minutes: \d+ samples since \d\d:\d\d/);

    // Axes with units and clock times.
    await expect(page.getByTestId('chart-cpu')).toContainText('100 %');
    await expect(page.getByTestId('chart-memory')).toContainText(/\d+ (MB|GB)/);
    await expect(page.getByTestId('chart-players')).toContainText('10');
    await expect(
      page
        .getByTestId('chart-players')
        .getByText(/^\d\d:\d\d/)
        .first(),
    ).toBeVisible();

    // The player who joined, with the face the game would give an offline player of that name.
    await expect(page.getByTestId('stat-players')).toHaveText('1 / 10');
    const player = page.getByTestId('player-list').getByRole('listitem').filter({ hasText: 'E2EBot' });
    await expect(player.getByTestId('player-head')).toHaveAttribute('data-skin', defaultSkinOf(offlineUuid('E2EBot')).name);

    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: `/tmp/spawnpoint-overview-${width}.png`, fullPage: true });
    }
    // The console: coloured lines as text that wraps at a phone's width.
    await page.goto(`${base}/console`);
    const log = page.getByRole('log', { name: 'Console output' });
    await expect(log).toContainText('E2EBot');
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: `/tmp/spawnpoint-console-${width}.png` });
    }
    // The server card with its icon.
    await page.goto('/servers');
    await expect(page.getByTestId('server-card').getByTestId('server-icon')).toBeVisible();
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: `/tmp/spawnpoint-cards-${width}.png`, fullPage: true });
    }
  } finally {
    bot.quit();
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(base);
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Offline', { timeout: 30_000 });
});

test('the landing page has its pixel art and headings in the self-hosted pixel typeface', async ({ page }) => {
  const fonts: string[] = [];
  page.on('response', (response) => {
    if (/\.woff2(\?|$)/.test(response.url())) fonts.push(response.url());
  });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/');
  const heading = page.getByRole('heading', { level: 1 });
  await expect(heading).toHaveCSS('font-family', /Pixelify Sans/);
  await expect.poll(() => page.evaluate('document.fonts.check("700 16px \'Pixelify Sans\'")')).toBe(true);
  expect(fonts.length).toBeGreaterThan(0);
  for (const url of fonts) expect(new URL(url).origin).toBe(new URL(page.url()).origin);
  await page.screenshot({ path: '/tmp/spawnpoint-landing-1280.png', fullPage: true });
  await page.setViewportSize({ width: 360, height: 800 });
  await page.reload();
  await expect(heading).toBeVisible();
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
  await page.screenshot({ path: '/tmp/spawnpoint-landing-360.png', fullPage: true });
});

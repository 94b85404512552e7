import { expect, test } from '@playwright/test';
import mineflayer from 'mineflayer';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

test('plugins: search the catalogue, install Homes while running, restart from the banner, and /sethome works in game', async ({
  page,
}) => {
  test.setTimeout(150_000);
  await verifiedAccount(page, 'plugins');
  const base = await createServerThroughForm(page, uniqueName('plg-', 8));
  const direct = await page.getByRole('button', { name: /^Direct address: / }).getAttribute('aria-label');
  const port = Number(/:(\d+)\. Copy$/.exec(direct ?? '')?.[1]);
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Online', { timeout: 30_000 });

  await page.getByRole('navigation', { name: 'Server' }).getByRole('link', { name: 'Plugins', exact: true }).click();
  await expect(page).toHaveURL(/\/plugins$/);
  await expect(page.getByTestId('plugins-empty')).toBeVisible();
  await expect(page.getByTestId('catalogue-entry')).toHaveCount(6);

  await page.getByLabel('Search plugins').fill('sethome');
  await expect(page.getByTestId('catalogue-entry')).toHaveCount(1);
  const homes = page.getByTestId('catalogue-entry').filter({ hasText: 'Homes' });
  await expect(homes).toContainText('/sethome [name]');
  await page.getByLabel('Search plugins').fill('no such plugin');
  await expect(page.getByText('No plugin matches “no such plugin”.')).toBeVisible();
  await page.getByLabel('Search plugins').fill('home');
  await homes.getByRole('button', { name: 'Install Homes' }).click();
  await expect(page.getByText('Homes installed')).toBeVisible();
  await expect(homes).toContainText('Installed');
  const row = page.getByTestId('installed-plugin').filter({ hasText: 'Homes' });
  await expect(row).toContainText('Version 1.0.0');

  // Its settings, checked on the field.
  await row.getByRole('button', { name: 'Settings of Homes' }).click();
  await page.getByLabel('Homes per player').fill('50');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'At most 20.' })).toBeVisible();
  await page.getByLabel('Homes per player').fill('2');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByText('Homes settings saved')).toBeVisible();

  // The server runs with what it started with: the page says a restart applies the change, and does it.
  const banner = page.getByRole('status').filter({ hasText: 'Your plugin changes apply when the server restarts.' });
  await expect(banner).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('plugins-1280.png'), fullPage: true });
  await page.setViewportSize({ width: 360, height: 800 });
  await page.screenshot({ path: test.info().outputPath('plugins-360.png'), fullPage: true });
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
  await page.setViewportSize({ width: 1280, height: 800 });
  await banner.getByRole('button', { name: 'Restart now' }).click();
  // The banner goes as the server stops; then it starts again with the plugin.
  await expect(banner).toBeHidden({ timeout: 60_000 });
  await expect(page.getByTestId('server-state')).toHaveText('Online', { timeout: 60_000 });

  // In game, the plugin answers.
  const bot = mineflayer.createBot({ host: '127.0.0.1', port, username: 'Builder', auth: 'offline', version: '1.21.4' });
  try {
    const heard: string[] = [];
    bot.on('messagestr', (line: string) => {
      heard.push(line);
    });
    await new Promise<void>((resolve, reject) => {
      bot.once('spawn', () => resolve());
      bot.once('kicked', (reason: unknown) => reject(new Error(`kicked: ${JSON.stringify(reason)}`)));
      bot.once('error', reject);
    });
    bot.chat('/sethome base');
    await expect.poll(() => heard.join('\n'), { timeout: 20_000 }).toContain('Home base saved.');
    bot.chat('/homes');
    await expect.poll(() => heard.join('\n'), { timeout: 20_000 }).toContain('Your homes: base');
  } finally {
    bot.end();
  }

  // Turned off and removed; each change is in the activity log.
  await row.getByRole('button', { name: 'Turn off Homes' }).click();
  await expect(row).toContainText('Off');
  await row.getByRole('button', { name: 'Remove Homes' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByTestId('plugins-empty')).toBeVisible();
  await page.goto(`${base}/activity`);
  await expect(page.getByTestId('server-activity')).toContainText('Installed a plugin');
  await expect(page.getByTestId('server-activity')).toContainText('Removed a plugin');
});

import { expect, test } from '@playwright/test';
import { offlineUuid } from '@spawnpoint/contracts';
import mineflayer from 'mineflayer';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

test('players page: whitelist a player while stopped (the file is written), turn the whitelist on, kick a player while running', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await verifiedAccount(page, 'players');
  const base = await createServerThroughForm(page, uniqueName('pl-', 8));
  const serverId = base.split('/').pop() as string;
  const direct = await page.getByRole('button', { name: /^Direct address: / }).getAttribute('aria-label');
  const port = Number(/:(\d+)\. Copy$/.exec(direct ?? '')?.[1]);

  await page.getByRole('navigation', { name: 'Server' }).getByRole('link', { name: 'Players', exact: true }).click();
  await expect(page).toHaveURL(/\/players$/);
  await expect(page.getByText('The server is stopped: changes are saved to its files')).toBeVisible();
  const whitelist = page.getByRole('region', { name: 'Whitelist' });

  // A name the game would not take is refused in the form's words, before anything is sent.
  await whitelist.getByPlaceholder('Player name').fill('two words');
  await whitelist.getByRole('button', { name: 'Add to whitelist' }).click();
  await expect(whitelist.getByText('A player name is 1 to 16 letters, digits and underscores.')).toBeVisible();

  // By keyboard: type the name and press Enter.
  await whitelist.getByPlaceholder('Player name').fill('Friend');
  await whitelist.getByPlaceholder('Player name').press('Enter');
  await expect(whitelist.getByRole('listitem').filter({ hasText: 'Friend' })).toBeVisible();
  await expect(whitelist.getByRole('listitem').filter({ hasText: 'Friend' }).getByTestId('player-head')).toBeVisible();
  await expect(whitelist.getByPlaceholder('Player name')).toHaveValue('');

  const file = await page.request.get(`/v1/server/${serverId}/files/content?path=/whitelist.json`);
  expect(JSON.parse((await file.json()).result.content as string)).toEqual([{ uuid: offlineUuid('Friend'), name: 'Friend' }]);

  const toggle = whitelist.getByRole('switch', { name: /Whitelist/ });
  await expect(toggle).toHaveAttribute('aria-checked', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-checked', 'true');
  const properties = await page.request.get(`/v1/server/${serverId}/files/content?path=/server.properties`);
  expect((await properties.json()).result.content).toContain('white-list=true');

  // Running: a player not on the whitelist is refused; the one on it joins and can be kicked from the page.
  await page.goto(base);
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Online', { timeout: 30_000 });
  const stranger = mineflayer.createBot({ host: '127.0.0.1', port, username: 'Stranger', auth: 'offline', version: '1.21.4' });
  const refused = await new Promise<string>((resolve) => stranger.once('kicked', (reason: unknown) => resolve(JSON.stringify(reason))));
  expect(refused).toContain('You are not white-listed on this server!');

  const bot = mineflayer.createBot({ host: '127.0.0.1', port, username: 'Friend', auth: 'offline', version: '1.21.4' });
  try {
    await new Promise<void>((resolve, reject) => {
      bot.once('spawn', () => resolve());
      bot.once('kicked', (reason: unknown) => reject(new Error(`kicked: ${JSON.stringify(reason)}`)));
      bot.once('error', reject);
    });
    const kicked = new Promise<string>((resolve) => bot.once('kicked', (reason: unknown) => resolve(JSON.stringify(reason))));
    await page.goto(`${base}/players`);
    await expect(page.getByText('The server is running: changes apply at once')).toBeVisible();
    const online = page.getByRole('region', { name: /^Online/ });
    await expect(online.getByRole('listitem').filter({ hasText: 'Friend' })).toBeVisible({ timeout: 20_000 });
    await online.getByRole('button', { name: 'Kick Friend' }).click();
    const dialog = page.getByRole('dialog', { name: 'Kick Friend?' });
    await dialog.getByLabel('Reason (optional)').fill('Time for dinner');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    expect(await kicked).toContain('Time for dinner');
    await expect(page.getByText('Friend was kicked.')).toBeVisible();
    await expect(online.getByText('Nobody is online.')).toBeVisible();
  } finally {
    bot.end();
    stranger.end();
  }
  await page.screenshot({ path: test.info().outputPath('players-1280.png'), fullPage: true });
  await page.setViewportSize({ width: 360, height: 800 });
  await page.screenshot({ path: test.info().outputPath('players-360.png'), fullPage: true });

  // The Properties page shows the same whitelist switch, and pvp; the built-in runtime is not offered
  // spawn protection or the nether.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${base}/properties`);
  await expect(page.getByRole('checkbox', { name: /Whitelist/ })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: /PvP/ })).toBeChecked();
  await expect(page.getByLabel('Spawn protection (blocks)')).toHaveCount(0);
  await page.getByRole('checkbox', { name: /PvP/ }).uncheck();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Settings saved')).toBeVisible();
  const saved = await page.request.get(`/v1/server/${serverId}/files/content?path=/server.properties`);
  expect((await saved.json()).result.content).toContain('pvp=false');
  await page.screenshot({ path: test.info().outputPath('properties-1280.png'), fullPage: true });
  await page.setViewportSize({ width: 360, height: 800 });
  await page.screenshot({ path: test.info().outputPath('properties-360.png'), fullPage: true });
});

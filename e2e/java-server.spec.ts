import path from 'node:path';
import { expect, test } from '@playwright/test';
import { buildFakeJar } from '../apps/agent/test-support/fake-jar.ts';
import { uniqueName, verifiedAccount } from './helpers.ts';

test('a Paper server asks for the Minecraft EULA at its first start, then starts and has eula.txt', async ({ page }) => {
  test.setTimeout(120_000);
  // The node's cache holds Paper 1.20.4 already (this machine reaches no vendor to download it): the
  // stand-in server the tests compile, which prints what Paper prints when ready.
  buildFakeJar(path.join(process.env.E2E_DATA_DIR as string, 'software/paper/1.20.4.jar'));
  await verifiedAccount(page, 'java');
  const name = uniqueName('java', 8);
  await page.goto('/servers/create');
  await page.getByLabel('Server name').fill(name);
  // The built-in runtime says how far it reaches, and where the newest releases are.
  await expect(page.getByTestId('builtin-versions')).toHaveText(
    'The built-in runtime speaks Minecraft 1.8.8 to 1.21.4. For newer releases, choose Paper, Purpur, Vanilla or Fabric.',
  );
  await page.getByLabel('Software').selectOption('paper');
  await expect(page.getByTestId('builtin-versions')).toHaveCount(0);
  await expect(page.getByText('Starting it asks you to accept the Minecraft EULA once.')).toBeVisible();
  // The releases the vendor lists (vendor-stub-main.ts), newest first as the default, never its snapshot or
  // pre-release; 1.21.4 only where the node has Java 21.
  const offered = await page.getByLabel('Minecraft version').locator('option').allTextContents();
  expect(['1.21.4,1.20.4', '1.20.4']).toContain(offered.join(','));
  await expect(page.getByLabel('Minecraft version')).toHaveValue(offered[0] ?? '');
  // Previews only on request: ticking the choice adds the vendor's pre-release, unticking takes it away again.
  const previews = page.getByLabel('Also offer snapshots and pre-releases: test versions that can break worlds and plugins.');
  await previews.check();
  await expect(page.getByLabel('Minecraft version').locator('optgroup[label="Snapshots and pre-releases"] option')).toHaveText([
    '1.21.5-pre1',
  ]);
  await page.getByLabel('Minecraft version').selectOption('1.21.5-pre1');
  await previews.uncheck();
  await expect(page.getByLabel('Minecraft version').locator('option')).toHaveText(offered);
  await expect(page.getByLabel('Minecraft version')).toHaveValue(offered[0] ?? '');
  await page.getByLabel('Minecraft version').selectOption('1.20.4');
  // What the first start installs: this machine has Java 17, which 1.20.4 runs on.
  await expect(page.getByTestId('java-note')).toHaveText('Runs on Java 17 or newer, already on the node.');
  await page.getByRole('button', { name: 'Create server' }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();

  // Start asks first; Cancel starts nothing.
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Accept the Minecraft EULA?' });
  await expect(dialog.getByRole('link', { name: /Read the Minecraft EULA/ })).toHaveAttribute('href', 'https://aka.ms/MinecraftEULA');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Offline');

  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Accept and start' }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Online', { timeout: 60_000 });
  await page.goto(`${new URL(page.url()).pathname}/files`);
  await expect(page.getByRole('button', { name: 'eula.txt', exact: true })).toBeVisible();
  await page.goto(new URL(page.url()).pathname.replace(/\/files$/, '/activity'));
  await expect(page.getByTestId('server-activity')).toContainText('Accepted the Minecraft EULA');
});

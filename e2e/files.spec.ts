import { expect, test, type Page } from '@playwright/test';
import minecraftProtocol from 'minecraft-protocol';
import { createServerThroughForm, verifiedAccount } from './helpers.ts';

async function createServer(page: Page, prefix: string): Promise<string> {
  await verifiedAccount(page, prefix);
  return createServerThroughForm(page, `${prefix}-${Date.now().toString(36).slice(-6)}`);
}

test('upload with progress, then edit a file and save it', async ({ page }) => {
  const base = await createServer(page, 'upl');
  await page.goto(`${base}/files`);
  await expect(page.getByRole('button', { name: 'server.properties', exact: true })).toBeVisible();

  // Slow the upload down so the progress can be watched, as on a real connection.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 20,
    downloadThroughput: -1,
    uploadThroughput: 2 * 1024 * 1024,
  });
  const big = Buffer.alloc(4 * 1024 * 1024, 7);
  await page.getByLabel('Files to upload').setInputFiles([
    { name: 'big.bin', mimeType: 'application/octet-stream', buffer: big },
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('first line\n') },
  ]);
  const progress = page.getByRole('progressbar', { name: 'Upload progress' });
  await expect(progress).toBeVisible();
  await expect(page.getByText(/Uploading big\.bin \(1 of 2\)/)).toBeVisible();
  await expect(page.getByText('Upload complete')).toBeVisible({ timeout: 30_000 });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await expect(page.getByTestId('file-row').filter({ hasText: 'big.bin' })).toContainText('4.0 MB');

  // Permissions: a bad value is refused with a hint and the dialog stays; a good one is applied.
  await page.getByRole('button', { name: /^Permissions of big\.bin: \d{3}$/ }).click();
  const permissions = page.getByRole('dialog', { name: 'Permissions of big.bin' });
  await permissions.getByLabel('Permissions').fill('9');
  await permissions.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByText('Use three digits from 0 to 7, such as 644.')).toBeVisible();
  await permissions.getByLabel('Permissions').fill('600');
  await permissions.getByRole('button', { name: 'Continue' }).click();
  await expect(permissions).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Permissions of big.bin: 600' })).toBeVisible();

  await page.getByRole('button', { name: 'notes.txt', exact: true }).click();
  const editor = page.getByTestId('code-editor').locator('.cm-content');
  await expect(editor).toContainText('first line');
  await editor.click();
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.type('second line');
  await expect(page.getByText('(unsaved)')).toBeVisible();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved', { exact: true })).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('code-editor').locator('.cm-content')).toContainText('second line');
});

test('a properties change applies after a restart (seen in the ping MOTD)', async ({ page }) => {
  test.setTimeout(90_000);
  const base = await createServer(page, 'prop');
  const direct = await page.getByRole('button', { name: /^Direct address: / }).getAttribute('aria-label');
  const port = Number(/:(\d+)\. Copy$/.exec(direct ?? '')?.[1]);
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Online', { timeout: 30_000 });

  await page.goto(`${base}/properties`);
  await page.getByLabel('Message of the day').fill('Welcome to the e2e world');
  await page.getByLabel('Difficulty').selectOption('hard');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('They apply the next time the server starts.')).toBeVisible();
  const before = (await minecraftProtocol.ping({ host: '127.0.0.1', port })) as { description: { text: string } };
  expect(before.description.text).not.toBe('Welcome to the e2e world');

  await page.getByRole('button', { name: 'Restart now to apply' }).click();
  await expect
    .poll(
      async () =>
        ((await minecraftProtocol.ping({ host: '127.0.0.1', port }).catch(() => null)) as { description?: { text?: string } } | null)
          ?.description?.text,
      {
        timeout: 30_000,
      },
    )
    .toBe('Welcome to the e2e world');
  await page.reload();
  await expect(page.getByLabel('Difficulty')).toHaveValue('hard');
});

test('back up, change a file, restore, and get the old content back', async ({ page }) => {
  const base = await createServer(page, 'bak');
  await page.goto(`${base}/files?path=/&edit=/server.properties`);
  await expect(page.getByTestId('code-editor').locator('.cm-content')).toContainText('motd=');
  await page.goto(`${base}/backups`);
  await expect(page.getByText('No backups yet.')).toBeVisible();
  await page.getByRole('button', { name: 'Create backup' }).click();
  await expect(page.getByText('Backup complete')).toBeVisible({ timeout: 30_000 });
  const row = page.getByTestId('backup-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(/SHA-256 [0-9a-f]{12}/);

  await row.getByRole('button', { name: 'Lock' }).click();
  await expect(row).toContainText('Locked');

  await page.goto(`${base}/properties`);
  await page.getByLabel('Message of the day').fill('Changed after the backup');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('They apply the next time the server starts.')).toBeVisible();

  await page.goto(`${base}/backups`);
  await page.getByTestId('backup-row').getByRole('button', { name: 'Restore' }).click();
  await page.getByRole('dialog', { name: 'Restore this backup?' }).getByRole('button', { name: 'Restore' }).click();
  await expect(page.getByText('Backup restored')).toBeVisible({ timeout: 30_000 });
  await page.goto(`${base}/properties`);
  await expect(page.getByLabel('Message of the day')).not.toHaveValue('Changed after the backup');
});

import { randomBytes } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

async function createServer(page: Page, prefix: string): Promise<string> {
  await verifiedAccount(page, prefix);
  return createServerThroughForm(page, uniqueName(`${prefix}-`, 6));
}

test('a double click on Create backup makes one backup and no error', async ({ page }) => {
  const base = await createServer(page, 'dblbak');
  await page.goto(`${base}/backups`);
  await expect(page.getByText('No backups yet.')).toBeVisible();
  const creates: Promise<unknown>[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/backups')) creates.push(request.response());
  });

  await page.getByRole('button', { name: 'Create backup' }).dblclick();
  await expect(page.getByText('Backup complete')).toBeVisible({ timeout: 30_000 });
  await Promise.all(creates);
  expect(creates).toHaveLength(1);
  await expect(page.getByText('Whoopsie!')).toHaveCount(0);
  await expect(page.getByTestId('backup-row')).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Create backup' })).toBeEnabled();

  // A locked backup is deleted only with "delete" typed; the activity log names it by its time.
  const row = page.getByTestId('backup-row');
  await row.getByRole('button', { name: 'Lock' }).click();
  await expect(row.getByText('Locked')).toBeVisible();
  await row.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete this locked backup?' });
  await expect(dialog).toContainText('You locked this backup');
  const confirm = dialog.getByRole('button', { name: 'Delete locked backup' });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel('Type delete to confirm').fill('delete');
  await confirm.click();
  await expect(page.getByText('No backups yet.')).toBeVisible();
  await page.goto(`${base}/activity`);
  const deleted = page.getByTestId('server-activity').getByRole('listitem').filter({ hasText: 'Deleted a backup' });
  await expect(deleted).toContainText(/backup of \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
});

test('a reload during a backup shows its progress, which clears once the backup is listed', async ({ page }) => {
  test.setTimeout(120_000);
  const base = await createServer(page, 'reloadbak');
  const serverId = base.split('/').pop() as string;
  // Random bytes do not compress, so the backup takes a few seconds: long enough to reload midway.
  const upload = await page.request.post(`/v1/server/${serverId}/files/upload?path=${encodeURIComponent('/noise.bin')}`, {
    multipart: { file: { name: 'noise.bin', mimeType: 'application/octet-stream', buffer: randomBytes(400 * 1024 * 1024) } },
    timeout: 60_000,
  });
  expect(((await upload.json()) as { status: string }).status).toBe('SUCCESS');

  await page.goto(`${base}/backups`);
  await page.getByRole('button', { name: 'Create backup' }).click();
  const status = page.getByRole('status').filter({ hasText: 'Backing up…' });
  await expect(status).toContainText(/Backing up… [1-9]\d? %/);
  const before = Number(/(\d+) %/.exec((await status.textContent()) ?? '')?.[1]);

  await page.reload();
  // The job is still running: the page says so from the start, not from 0 %, and Create waits.
  await expect(status).toBeVisible();
  await expect.poll(async () => Number(/(\d+) %/.exec((await status.textContent()) ?? '')?.[1])).toBeGreaterThanOrEqual(before);
  await expect(page.getByRole('button', { name: 'Create backup' })).toBeDisabled();

  // Once the backup is listed the progress goes and Create works again.
  await expect(page.getByTestId('backup-row')).toHaveCount(1, { timeout: 60_000 });
  await expect(status).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Create backup' })).toBeEnabled();
});

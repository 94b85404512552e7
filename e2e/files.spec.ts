import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import minecraftProtocol from 'minecraft-protocol';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';
import { statusText, type ChatComponent } from '../test-support/status-text.ts';

async function createServer(page: Page, prefix: string): Promise<string> {
  await verifiedAccount(page, prefix);
  return createServerThroughForm(page, uniqueName(`${prefix}-`, 6));
}

test('upload with progress, then edit a file and save it', async ({ page }) => {
  const base = await createServer(page, 'upl');
  await page.goto(`${base}/files`);
  await expect(page.getByRole('button', { name: 'server.properties', exact: true })).toBeVisible();

  // The bytes go straight to the node (a signed link), not through the API, and without the session cookie.
  const uploads: { method: string; origin: string; path: string; cookie: string | undefined }[] = [];
  page.on('request', async (request) => {
    const url = new URL(request.url());
    if (request.method() === 'OPTIONS' || !/\/files\/upload$|^\/v1\/uploads\//.test(url.pathname)) return;
    uploads.push({ method: request.method(), origin: url.origin, path: url.pathname, cookie: (await request.allHeaders()).cookie });
  });
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
  expect(uploads).toHaveLength(2);
  for (const sent of uploads) {
    expect(sent).toMatchObject({ method: 'PUT', path: expect.stringMatching(/^\/v1\/uploads\/[^/]+\/file$/), cookie: undefined });
    expect(sent.origin).not.toBe(new URL(page.url()).origin);
  }

  // Permissions: a bad value is refused with a hint in the dialog (no toast) and the dialog stays; 000, which
  // would leave a file the server cannot use, too; a good one is applied.
  await page.getByRole('button', { name: /^Permissions of big\.bin: \d{3}$/ }).click();
  const permissions = page.getByRole('dialog', { name: 'Permissions of big.bin' });
  await permissions.getByLabel('Permissions').fill('999');
  await permissions.getByRole('button', { name: 'Continue' }).click();
  await expect(permissions.getByRole('alert')).toHaveText('Use three digits from 0 to 7, such as 644.');
  await expect(page.locator('[data-sonner-toast]').filter({ hasText: /three digits|Error/ })).toHaveCount(0);
  await permissions.getByLabel('Permissions').fill('000');
  await permissions.getByRole('button', { name: 'Continue' }).click();
  await expect(permissions.getByRole('alert')).toContainText('The first digit must be 6 or 7');
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
  const before = (await minecraftProtocol.ping({ host: '127.0.0.1', port })) as { description: ChatComponent };
  expect(statusText(before.description)).not.toBe('Welcome to the e2e world');

  await page.getByRole('button', { name: 'Restart now to apply' }).click();
  await expect
    .poll(
      async () => {
        const status = (await minecraftProtocol.ping({ host: '127.0.0.1', port }).catch(() => null)) as {
          description?: ChatComponent;
        } | null;
        return status?.description ? statusText(status.description) : undefined;
      },
      {
        timeout: 30_000,
      },
    )
    .toBe('Welcome to the e2e world');
  await page.reload();
  await expect(page.getByLabel('Difficulty')).toHaveValue('hard');
  await expect(page.getByText('Up to 10 on this server’s plan.')).toBeVisible();
  // Only what changed is sent: with nothing changed there is nothing to save.
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('No setting was changed.')).toBeVisible();

  // Whether a joining player starts the server: saved on choosing, kept over a reload.
  await expect(page.getByRole('radio', { name: /^Always/ })).toBeChecked();
  await page.getByRole('radio', { name: /^Only from sleep/ }).check();
  await expect(page.getByText('once you press Stop, only you start it again').last()).toBeVisible();
  await page.reload();
  await expect(page.getByRole('radio', { name: /^Only from sleep/ })).toBeChecked();
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

  // Downloads come straight from the node (the API answers with a redirect to a signed link), named as before.
  const backupDownload = page.waitForEvent('download');
  await row.getByRole('link', { name: 'Download' }).click();
  expect((await backupDownload).suggestedFilename()).toMatch(/^bak-[a-z0-9]+-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.tar\.gz$/);
  await page.goto(`${base}/files?path=/`);
  const fileDownload = page.waitForEvent('download');
  await page.getByTestId('file-row').filter({ hasText: 'server.properties' }).getByRole('link', { name: 'Download' }).click();
  const file = await fileDownload;
  expect(file.suggestedFilename()).toBe('server.properties');
  expect(readFileSync(await file.path(), 'utf8')).toContain('motd=');
  await page.goto(`${base}/backups`);

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
  // The restore is a job: its end is told by the event, and the page offers backups again.
  await expect(page.getByText('Start the server when you are ready.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create backup' })).toBeEnabled();
  await page.screenshot({ path: test.info().outputPath('backups-restored-1280.png'), fullPage: true });
  await page.setViewportSize({ width: 360, height: 800 });
  await page.screenshot({ path: test.info().outputPath('backups-restored-360.png'), fullPage: true });
  await page.goto(`${base}/properties`);
  await expect(page.getByLabel('Message of the day')).not.toHaveValue('Changed after the backup');
});

test('a new empty file is created and opens in the editor; a file cleared in the editor saves empty', async ({ page }) => {
  const base = await createServer(page, 'empty');
  const serverId = base.split('/').pop() as string;
  await page.goto(`${base}/files`);
  await expect(page.getByRole('button', { name: 'server.properties', exact: true })).toBeVisible();

  await page.getByRole('button', { name: 'New file' }).click();
  const dialog = page.getByRole('dialog', { name: 'New file' });
  await dialog.getByLabel('File name').fill('ops.json');
  await dialog.getByRole('button', { name: 'Continue' }).click();
  // The dialog closes and the new, empty file is open in the editor (it used to spin and create nothing).
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('heading', { name: '/ops.json' })).toBeVisible();
  const editor = page.getByTestId('code-editor').locator('.cm-content');
  await expect(editor).toBeVisible();

  await editor.click();
  await page.keyboard.type('[]');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved', { exact: true })).toBeVisible();
  await expect(page.getByText('(unsaved)')).toHaveCount(0);

  // Clear it again and save: the file is empty, and stays so after a reload.
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await expect(page.getByText('(unsaved)')).toBeVisible();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('(unsaved)')).toHaveCount(0);
  const content = await page.request.get(`/v1/server/${serverId}/files/content?path=/ops.json`);
  expect(await content.json()).toEqual({ status: 'SUCCESS', result: { path: '/ops.json', content: '' } });

  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await expect(page.getByTestId('file-row').filter({ hasText: 'ops.json' })).toContainText('0 B');

  // "New file" with a name in use refuses and keeps that file; a blank name says it is required.
  await page.getByRole('button', { name: 'New file' }).click();
  await dialog.getByLabel('File name').fill('server.properties');
  await dialog.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByText('server.properties already exists.')).toBeVisible();
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('File name').fill('  ');
  await dialog.getByRole('button', { name: 'Continue' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('The file name field is required');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  const properties = await page.request.get(`/v1/server/${serverId}/files/content?path=/server.properties`);
  expect(((await properties.json()) as { result: { content: string } }).result.content).toContain('motd=');

  // Renaming to a blank name says the name is required (it used to say "… already exists").
  await page.getByRole('button', { name: 'Rename' }).first().click();
  const rename = page.getByRole('dialog', { name: /^Rename or move / });
  await rename.getByLabel('New name or path').fill('');
  await rename.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByText('The new name field is required')).toBeVisible();
  await expect(page.getByText(/already exists/)).toHaveCount(0);
});

test('a folder tree uploads without an error per folder, and the toast counts what happened', async ({ page }) => {
  const base = await createServer(page, 'tree');
  const tree = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-tree-'));
  mkdirSync(path.join(tree, 'pack', 'data', 'deep'), { recursive: true });
  writeFileSync(path.join(tree, 'pack', 'a.txt'), 'a');
  writeFileSync(path.join(tree, 'pack', 'data', 'b.txt'), 'b');
  writeFileSync(path.join(tree, 'pack', 'data', 'deep', 'c.txt'), 'c');
  await page.goto(`${base}/files`);
  await expect(page.getByRole('button', { name: 'server.properties', exact: true })).toBeVisible();

  await page.getByLabel('Folder to upload').setInputFiles(path.join(tree, 'pack'));
  await expect(page.getByText('3 files uploaded, 3 folders created.')).toBeVisible();
  await expect(page.getByText('Whoopsie!')).toHaveCount(0);

  // The same tree again: every folder exists now, which is fine for an upload; the files are asked about.
  await page.getByLabel('Folder to upload').setInputFiles(path.join(tree, 'pack'));
  const question = page.getByRole('dialog', { name: 'a.txt already exists' });
  await question.getByRole('checkbox', { name: 'Apply to all remaining conflicts (2 more)' }).check();
  await question.getByRole('button', { name: 'Replace' }).click();
  await expect(page.getByText('3 files replaced.')).toBeVisible();
  await expect(page.getByText('Whoopsie!')).toHaveCount(0);
  await expect(page.getByText(/already exists/)).toHaveCount(0);

  await page.getByRole('button', { name: 'pack/', exact: true }).click();
  await page.getByRole('button', { name: 'data/', exact: true }).click();
  await page.getByRole('button', { name: 'deep/', exact: true }).click();
  await expect(page.getByTestId('file-row').filter({ hasText: 'c.txt' })).toContainText('1 B');
});

test('leaving the editor with unsaved changes asks first (tabs, Close, reload)', async ({ page }) => {
  const base = await createServer(page, 'dirty');
  await page.goto(`${base}/files?path=/&edit=/server.properties`);
  const editor = page.getByTestId('code-editor').locator('.cm-content');
  await expect(editor).toContainText('motd=');
  await editor.click();
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.type('\n# keep me');
  await expect(page.getByText('(unsaved)')).toBeVisible();

  // Another tab of the server: asked, and Cancel keeps the editor and the text.
  const leave = page.getByRole('dialog', { name: 'Leave without saving?' });
  await page.getByRole('link', { name: 'Console', exact: true }).click();
  await expect(leave).toBeVisible();
  await leave.getByRole('button', { name: 'Cancel' }).click();
  await expect(leave).toHaveCount(0);
  await expect(page).toHaveURL(/\/files\?/);
  await expect(editor).toContainText('# keep me');

  // Reload: the browser's own "Leave site?" prompt; dismissing it keeps the page.
  const prompt = page.waitForEvent('dialog');
  // Not page.reload(): that waits for a load which a dismissed prompt never starts.
  const reloading = page.evaluate('location.reload()');
  const beforeUnload = await prompt;
  expect(beforeUnload.type()).toBe('beforeunload');
  await beforeUnload.dismiss();
  await reloading;
  await expect(editor).toContainText('# keep me');

  // Close: asked too; leaving goes back to the folder and the file is as it was.
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await leave.getByRole('button', { name: 'Leave without saving' }).click();
  await expect(page.getByTestId('file-row').first()).toBeVisible();
  await page.getByRole('button', { name: 'server.properties', exact: true }).click();
  await expect(editor).toContainText('motd=');
  await expect(editor).not.toContainText('# keep me');

  // Saved changes leave without a question.
  await editor.click();
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.type('\n# saved');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('(unsaved)')).toHaveCount(0);
  await page.getByRole('link', { name: 'Console', exact: true }).click();
  await expect(page).toHaveURL(/\/console$/);
  await expect(leave).toHaveCount(0);
});

test('a damaged archive is refused with a message that says so, at phone width too', async ({ page }) => {
  const base = await createServer(page, 'dmg');
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`${base}/files`);
    const name = `broken-${width}.zip`;
    await page
      .getByLabel('Files to upload')
      .setInputFiles([{ name, mimeType: 'application/zip', buffer: Buffer.from('PK\u0003\u0004 this is not really a zip file at all') }]);
    const row = page.getByTestId('file-row').filter({ hasText: name });
    await expect(row).toBeVisible();
    await row.getByRole('button', { name: 'Extract' }).click();
    // The user's bad file is their input: a clear 4xx message, never "Something went wrong on our side".
    await expect(page.getByText(/The archive is damaged or incomplete and could not be extracted/)).toBeVisible();
    await expect(page.getByText('Something went wrong on our side')).toHaveCount(0);
    // No sideways scroll at this width.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await page.screenshot({ path: test.info().outputPath(`damaged-archive-${width}.png`) });
    // The page and the node keep working: the listing still answers.
    await page.reload();
    await expect(page.getByRole('button', { name: 'server.properties', exact: true })).toBeVisible();
  }
});

test('a folder that cannot be listed says why where the list would be, not that it is empty', async ({ page }) => {
  const base = await createServer(page, 'nolist');
  // A stale address (the folder was deleted in another tab, say).
  await page.goto(`${base}/files?path=${encodeURIComponent('/gone-folder')}`);
  const unavailable = page.getByTestId('files-unavailable');
  await expect(unavailable).toBeVisible();
  await expect(unavailable).toHaveText(/does not exist/);
  await expect(page.getByText('This folder is empty')).toHaveCount(0);
});

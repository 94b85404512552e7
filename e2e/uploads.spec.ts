import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

async function createServer(page: Page, prefix: string): Promise<{ base: string; serverId: string }> {
  await verifiedAccount(page, prefix);
  const base = await createServerThroughForm(page, uniqueName(`${prefix}-`, 6));
  return { base, serverId: base.split('/').pop() as string };
}

const text = (name: string, content: string) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(content) });

async function contentOf(page: Page, serverId: string, file: string): Promise<string | null> {
  const res = await page.request.get(`/v1/server/${serverId}/files/content?path=${encodeURIComponent(file)}`);
  const body = (await res.json()) as { status: string; result?: { content: string } };
  return body.status === 'SUCCESS' ? (body.result?.content ?? null) : null;
}

async function namesIn(page: Page, serverId: string, folder: string): Promise<string[]> {
  const res = await page.request.get(`/v1/server/${serverId}/files/list?path=${encodeURIComponent(folder)}`);
  return ((await res.json()) as { result: { name: string }[] }).result.map((e) => e.name);
}

/** Tab through the dialog until the button named `name` has the focus, as a keyboard user would. */
async function tabTo(page: Page, dialog: Locator, name: string) {
  for (let i = 0; i < 8 && (await page.evaluate('document.activeElement?.textContent')) !== name; i++) await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name })).toBeFocused();
}

const noSidewaysScroll = (page: Page) => page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');

test('a name in use is asked about: Keep both uploads "name (1).ext", Skip and Replace do what they say, Cancel sends nothing', async ({
  page,
}) => {
  const { base, serverId } = await createServer(page, 'conf');
  await page.goto(`${base}/files`);
  await expect(page.getByRole('button', { name: 'server.properties', exact: true })).toBeVisible();
  const files = page.getByLabel('Files to upload');
  const question = page.getByRole('dialog', { name: 'a.txt already exists' });
  const toast = (message: string) => page.locator('[data-sonner-toast]').filter({ hasText: message });

  await files.setInputFiles([text('a.txt', 'original')]);
  await expect(toast('1 file uploaded.')).toBeVisible();
  await expect(page.getByTestId('file-row').filter({ hasText: 'a.txt' })).toBeVisible();
  // The notice settles below the site header, so Servers, Account and Sign out stay visible and clickable.
  const header = await page.locator('header').boundingBox();
  const headerBottom = (header?.y ?? 0) + (header?.height ?? 0);
  await expect.poll(async () => (await toast('1 file uploaded.').boundingBox())?.y ?? 0).toBeGreaterThanOrEqual(headerBottom);
  // A trial click fails when something else (the notice) would take the click.
  await page.getByRole('button', { name: 'Sign out' }).click({ trial: true, timeout: 1_000 });

  // Keep both: the new one arrives as "a (1).txt", the first keeps its content.
  await files.setInputFiles([text('a.txt', 'second')]);
  await expect(question).toBeVisible();
  await expect(question).toContainText('A file named a.txt is already in /.');
  await question.getByRole('button', { name: 'Keep both' }).click();
  await expect(question).toHaveCount(0);
  await expect(page.getByTestId('file-row').filter({ hasText: 'a (1).txt' })).toBeVisible();
  expect(await contentOf(page, serverId, '/a (1).txt')).toBe('second');
  expect(await contentOf(page, serverId, '/a.txt')).toBe('original');

  // Again: the next free number.
  await files.setInputFiles([text('a.txt', 'third')]);
  await question.getByRole('button', { name: 'Keep both' }).click();
  await expect(page.getByTestId('file-row').filter({ hasText: 'a (2).txt' })).toBeVisible();
  expect(await contentOf(page, serverId, '/a (2).txt')).toBe('third');

  // Skip, by keyboard: nothing sent, the file unchanged, and the toast says it was skipped.
  await files.setInputFiles([text('a.txt', 'skipped')]);
  await expect(question).toBeVisible();
  await tabTo(page, question, 'Skip');
  await page.keyboard.press('Enter');
  await expect(toast('1 file skipped.')).toBeVisible();
  expect(await contentOf(page, serverId, '/a.txt')).toBe('original');

  // Replace: the file has the new content.
  await files.setInputFiles([text('a.txt', 'replaced')]);
  await question.getByRole('button', { name: 'Replace' }).click();
  await expect(toast('1 file replaced.')).toBeVisible();
  expect(await contentOf(page, serverId, '/a.txt')).toBe('replaced');

  // Cancel of the question (here by Escape) cancels the whole upload: not even the file without a conflict goes.
  await files.setInputFiles([text('b.txt', 'new'), text('a.txt', 'never')]);
  await expect(question).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(toast('Nothing was uploaded.')).toBeVisible();
  await files.setInputFiles([text('b.txt', 'new'), text('a.txt', 'never')]);
  await question.getByRole('button', { name: 'Cancel upload' }).click();
  await expect(question).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Upload files' })).toBeEnabled();
  expect(await namesIn(page, serverId, '/')).not.toContain('b.txt');
  expect(await contentOf(page, serverId, '/a.txt')).toBe('replaced');

  // The question at a desktop's width and at a phone's: it fits, no sideways scroll.
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: 800 });
    await files.setInputFiles([text('a.txt', 'never'), text('a (1).txt', 'never')]);
    await expect(question).toBeVisible();
    await expect(question.getByRole('checkbox', { name: 'Apply to all remaining conflicts (1 more)' })).toBeVisible();
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.screenshot({ path: path.join(os.tmpdir(), `upload-conflict-${width}.png`) });
    await question.getByRole('button', { name: 'Cancel upload' }).click();
    await expect(question).toHaveCount(0);
  }
});

test('"Apply to all remaining conflicts" asks once, also for names inside an uploaded folder', async ({ page }) => {
  const { base, serverId } = await createServer(page, 'all');
  const tree = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-all-'));
  mkdirSync(path.join(tree, 'pack', 'data'), { recursive: true });
  writeFileSync(path.join(tree, 'pack', 'a.txt'), 'a');
  writeFileSync(path.join(tree, 'pack', 'data', 'b.txt'), 'b');
  writeFileSync(path.join(tree, 'pack', 'data', 'c.txt'), 'c');
  await page.goto(`${base}/files`);
  await expect(page.getByRole('button', { name: 'server.properties', exact: true })).toBeVisible();
  const folder = page.getByLabel('Folder to upload');
  const dialogs = page.getByRole('dialog');

  await folder.setInputFiles(path.join(tree, 'pack'));
  await expect(page.getByText('3 files uploaded, 2 folders created.')).toBeVisible();

  // The same tree again: three names in use, one of them in the top folder, two in pack/data.
  writeFileSync(path.join(tree, 'pack', 'data', 'b.txt'), 'b, second');
  await folder.setInputFiles(path.join(tree, 'pack'));
  const question = page.getByRole('dialog', { name: 'a.txt already exists' });
  await expect(question).toContainText('A file named a.txt is already in /pack.');
  await question.getByRole('checkbox', { name: 'Apply to all remaining conflicts (2 more)' }).check();
  await question.getByRole('button', { name: 'Keep both' }).click();
  // No second question: the answer held for all three.
  await expect(page.getByText('3 files uploaded.')).toBeVisible();
  await expect(dialogs).toHaveCount(0);
  expect((await namesIn(page, serverId, '/pack')).sort()).toEqual(['a (1).txt', 'a.txt', 'data']);
  expect((await namesIn(page, serverId, '/pack/data')).sort()).toEqual(['b (1).txt', 'b.txt', 'c (1).txt', 'c.txt']);
  expect(await contentOf(page, serverId, '/pack/data/b (1).txt')).toBe('b, second');
  expect(await contentOf(page, serverId, '/pack/data/b.txt')).toBe('b');

  // Skip for all: nothing changes.
  await folder.setInputFiles(path.join(tree, 'pack'));
  await question.getByRole('checkbox', { name: /^Apply to all remaining conflicts/ }).check();
  await question.getByRole('button', { name: 'Skip' }).click();
  await expect(page.getByText('3 files skipped.')).toBeVisible();
  await expect(dialogs).toHaveCount(0);
  expect((await namesIn(page, serverId, '/pack/data')).sort()).toEqual(['b (1).txt', 'b.txt', 'c (1).txt', 'c.txt']);
});

test('a large upload shows its speed and time left, and Cancel stops it and keeps nothing of it', async ({ page }) => {
  const { base, serverId } = await createServer(page, 'cncl');
  await page.goto(`${base}/files`);
  await expect(page.getByRole('button', { name: 'server.properties', exact: true })).toBeVisible();

  // A slow connection (256 KB/s), so the 16 MB file would take a minute.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
  await page
    .getByLabel('Files to upload')
    .setInputFiles([
      { name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(16 * 1024 * 1024, 7) },
      text('after.txt', 'never sent'),
    ]);
  await expect(page.getByText('Uploading big.bin (1 of 2)')).toBeVisible();
  const figures = page.getByTestId('upload-figures');
  await expect(figures).toContainText(/ of 16 MB · [\d.]+ KB\/s · about \d+ (s|min) left/, { timeout: 15_000 });
  // The node has begun writing it when Cancel is pressed.
  await expect
    .poll(async () => (await namesIn(page, serverId, '/')).some((n) => n.startsWith('.spawnpoint-')), { timeout: 15_000 })
    .toBe(true);
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: 800 });
    await expect(page.getByRole('button', { name: 'Cancel upload' })).toBeVisible();
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.screenshot({ path: path.join(os.tmpdir(), `upload-progress-${width}.png`) });
  }

  await page.getByRole('button', { name: 'Cancel upload' }).click();
  await expect(page.getByText('Upload cancelled')).toBeVisible();
  await expect(page.getByText('0 files uploaded, 1 not sent. Nothing of big.bin was kept.')).toBeVisible();
  await expect(page.getByRole('progressbar', { name: 'Upload progress' })).toHaveCount(0);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  // Nothing of it on the server: no file, and the node's temporary file is gone too.
  await expect
    .poll(async () =>
      (await namesIn(page, serverId, '/')).filter((n) => n === 'big.bin' || n === 'after.txt' || n.startsWith('.spawnpoint-')),
    )
    .toEqual([]);
  await page.reload();
  await expect(page.getByRole('button', { name: 'server.properties', exact: true })).toBeVisible();
  await expect(page.getByTestId('file-row').filter({ hasText: 'big.bin' })).toHaveCount(0);
});

import { truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

async function noSidewaysScroll(page: Page): Promise<void> {
  expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
}

// What the owner sees when the node stops a game for writing past its disk quota: the Overview says why and
// what to do, the console has the same line, Start is refused until space is freed, and the file manager
// frees it. The game's writing is stood in for by a file put in its folder on the node while it runs (a
// sparse one: it counts at its size, as anything the game could fill in place does, and costs no disk).
test('a server stopped for its disk quota says so on the Overview and Console, at 1280 and 360 px', async ({ page }) => {
  test.setTimeout(180_000);
  await verifiedAccount(page, 'quota');
  const serverPath = await createServerThroughForm(page, uniqueName('full-', 8));
  const serverId = serverPath.split('/').pop() ?? '';
  const state = page.getByTestId('server-state');
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(state).toHaveText('Online', { timeout: 30_000 });

  const folder = path.join(process.env.E2E_DATA_DIR ?? '', 'servers', serverId);
  const big = path.join(folder, 'big.bin');
  writeFileSync(big, '');
  truncateSync(big, 3 * 1024 * 1024 * 1024);

  const notice = page.getByTestId('stopped-because');
  await expect(state).toHaveText('Offline', { timeout: 60_000 });
  await expect(notice).toContainText('The server is not running');
  await expect(notice).toContainText(/its folder uses 30\d\d MB, more than its disk limit of 2048 MB/);
  await expect(notice).toContainText('Delete files in the file manager (or upgrade), then start it again.');
  await page.screenshot({ path: test.info().outputPath('quota-overview-1280.png'), fullPage: true });
  await page.setViewportSize({ width: 360, height: 800 });
  await expect(notice).toBeVisible();
  await noSidewaysScroll(page);
  await page.screenshot({ path: test.info().outputPath('quota-overview-360.png'), fullPage: true });

  // The console carries the same words, at the end.
  await notice.getByRole('link', { name: 'See the console' }).click();
  await expect(page.getByTestId('console-output')).toContainText('more than its disk limit');
  await noSidewaysScroll(page);
  await page.screenshot({ path: test.info().outputPath('quota-console-360.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: test.info().outputPath('quota-console-1280.png'), fullPage: true });

  // Start is refused with what to do, and nothing starts.
  await page.goto(serverPath);
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByText('The disk limit of this server has been reached. Delete files or upgrade before starting it.')).toBeVisible();
  await expect(state).toHaveText('Offline');

  // Freeing the space in the file manager lets it start again, and the notice goes.
  await page.goto(`${serverPath}/files`);
  const row = page.getByTestId('file-row').filter({ hasText: 'big.bin' });
  await row.getByRole('checkbox', { name: 'Select big.bin' }).check();
  await page.getByRole('button', { name: 'Delete (1)' }).click();
  await page.getByRole('dialog', { name: 'Delete 1 item?' }).getByRole('button', { name: 'Delete' }).click();
  await expect(row).toHaveCount(0);

  // Meanwhile another program on the node took the server's port: the start moves it to a free one and the
  // page shows the new address instead of a start that never becomes ready.
  await page.goto(serverPath);
  const direct = page.getByText('Direct connection:');
  const before = (await direct.textContent()) ?? '';
  const port = Number(/:(\d+)/.exec(before)?.[1]);
  expect(port).toBeGreaterThan(0);
  const squatter = createServer();
  await new Promise<void>((resolve) => squatter.listen(port, '0.0.0.0', resolve));
  try {
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await expect(state).toHaveText('Online', { timeout: 30_000 });
    await expect(direct).not.toHaveText(before);
    await expect(notice).toHaveCount(0);
  } finally {
    squatter.close();
  }
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(state).toHaveText('Offline', { timeout: 30_000 });
  await expect(notice).toHaveCount(0);
});

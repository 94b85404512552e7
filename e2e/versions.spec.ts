import { expect, test } from '@playwright/test';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

test('the Minecraft version changes in Properties after a backup; going back is asked about plainly', async ({ page }) => {
  await verifiedAccount(page, 'version');
  const base = await createServerThroughForm(page, uniqueName('ver-', 8));
  await page.goto(`${base}/properties`);
  const section = page.getByRole('region', { name: 'Minecraft version' });
  await expect(section.getByTestId('current-version')).toHaveText('1.21.4');
  await expect(section.getByRole('button', { name: 'Change version' })).toBeDisabled();

  await section.getByLabel('Version').selectOption('1.20.4');
  await section.getByRole('button', { name: 'Change version' }).click();
  const dialog = page.getByRole('dialog', { name: 'Go back to Minecraft 1.20.4?' });
  await expect(dialog).toContainText('Worlds saved by Minecraft 1.21.4 may not load in 1.20.4');
  await page.screenshot({ path: test.info().outputPath('version-downgrade-1280.png') });
  await dialog.getByRole('button', { name: 'Back up and downgrade' }).click();
  await expect(page.getByText('Minecraft 1.20.4 from the next start')).toBeVisible({ timeout: 30_000 });
  await expect(section.getByTestId('current-version')).toHaveText('1.20.4');

  // The backup was made first, and the overview says which version players need.
  await page.goto(`${base}/backups`);
  await expect(page.getByTestId('backup-row')).toHaveCount(1);
  await page.goto(base);
  await expect(page.getByText('Join with Minecraft Java Edition 1.20.4.')).toBeVisible();
  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto(`${base}/properties`);
  await expect(section.getByTestId('current-version')).toHaveText('1.20.4');
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('version-360.png') });
});

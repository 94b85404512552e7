import { expect, test } from '@playwright/test';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

test('add a nightly backup with its next runs shown while typing, fix a bad expression, pause and delete it', async ({ page }) => {
  await verifiedAccount(page, 'sched');
  const base = await createServerThroughForm(page, uniqueName('sched', 8));
  await page.getByRole('navigation', { name: 'Server' }).getByRole('link', { name: 'Schedules', exact: true }).click();
  await expect(page.getByTestId('schedules-empty')).toBeVisible();

  await page.getByLabel('Name').fill('Nightly backup');
  await page.getByLabel('Time zone').selectOption('Asia/Tokyo');
  // A seconds field is refused as the user types, with what to write instead.
  await page.getByLabel(/^Cron expression/).fill('* * * * * *');
  await expect(page.getByTestId('schedule-preview')).toContainText('Use five fields');
  await page.getByLabel('Often used').selectOption({ label: 'Every day at 04:00' });
  await expect(page.getByLabel(/^Cron expression/)).toHaveValue('0 4 * * *');
  // Three nights ahead, at 04:00 Tokyo time.
  await expect(page.getByTestId('schedule-preview').getByRole('listitem')).toHaveCount(3);
  for (const item of await page.getByTestId('schedule-preview').getByRole('listitem').all()) await expect(item).toContainText('04:00');
  await page.getByLabel('Backups of this schedule to keep').selectOption('2');
  await page.getByRole('button', { name: 'Add schedule' }).click();
  await expect(page.getByText('Schedule added')).toBeVisible();
  const row = page.getByTestId('schedule').filter({ hasText: 'Nightly backup' });
  await expect(row).toContainText("Back up, keeping this schedule's last 2");
  await expect(row).toContainText('0 4 * * * · Asia/Tokyo');
  await expect(row).toContainText(/Next: .*04:00/);
  await expect(row).toContainText('Has not run yet.');
  await page.screenshot({ path: test.info().outputPath('schedules-1280.png'), fullPage: true });

  // A date that never comes is refused by the API too, next to the field.
  await row.getByRole('button', { name: 'Change Nightly backup' }).click();
  await page.getByLabel(/^Cron expression/).fill('0 0 30 2 *');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'This schedule would never run' }).first()).toBeVisible();
  await page.getByRole('button', { name: 'Cancel' }).click();

  await row.getByRole('button', { name: 'Pause Nightly backup' }).click();
  await expect(row).toContainText('Paused');
  await row.getByRole('button', { name: 'Delete Nightly backup' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('schedules-empty')).toBeVisible();

  // What happened is in the activity log.
  await page.goto(`${base}/activity`);
  await expect(page.getByTestId('server-activity')).toContainText('Deleted a schedule');
  await expect(page.getByTestId('server-activity')).toContainText('Added a schedule');
});

test('a schedule due in the coming minute runs by itself: it starts the server, and the page and activity log say so', async ({ page }) => {
  test.setTimeout(150_000);
  await verifiedAccount(page, 'schedrun');
  const base = await createServerThroughForm(page, uniqueName('schrun', 8));
  await page.goto(`${base}/schedules`);
  await page.getByLabel('Name').fill('Wake up');
  await page.getByLabel('Action').selectOption('start');
  await page.getByLabel(/^Cron expression/).fill('* * * * *');
  await page.getByRole('button', { name: 'Add schedule' }).click();
  const row = page.getByTestId('schedule').filter({ hasText: 'Wake up' });
  await expect(row).toBeVisible();
  // At the next whole minute (and the runner's next look, within 5 s), the server starts.
  await page.goto(base);
  await expect(page.getByTestId('server-state')).toHaveText('Online', { timeout: 100_000 });
  await page.goto(`${base}/schedules`);
  await expect(page.getByTestId('schedule').filter({ hasText: 'Wake up' })).toContainText(/Ran .*Started the server\./);
  await page.goto(`${base}/activity`);
  await expect(page.getByTestId('server-activity')).toContainText('A schedule ran');
  await expect(page.getByTestId('server-activity')).toContainText('by a schedule');
  await page.goto(`${base}/schedules`);
  await page.getByRole('button', { name: 'Delete Wake up' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await page.goto(base);
  await page.getByRole('button', { name: 'Kill', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Kill' }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Offline');
});

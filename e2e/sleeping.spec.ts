import { expect, test } from '@playwright/test';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

test('a server nobody plays on goes to sleep by itself, live, and Start wakes it', async ({ page }) => {
  test.setTimeout(180_000);
  await verifiedAccount(page, 'sleep');
  const serverPath = await createServerThroughForm(page, uniqueName('nap-', 8));
  const state = page.getByTestId('server-state');
  await expect(state).toHaveText('Offline');
  // The e2e configuration sets 45 seconds (the free plan says 5 minutes).
  await expect(page.getByTestId('sleeps-after')).toHaveText('Sleeps after 45 seconds without players.');
  await expect(page.getByTestId('play-time-left')).toContainText('Play time left today: 4 h 0 min of 4 h 0 min');

  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(state).toHaveText('Online', { timeout: 30_000 });
  // Play time counts while it runs.
  await expect(page.getByTestId('play-time-left')).toContainText('counting while a server of yours runs');

  // Nobody joins: the page sees it stop and fall asleep without a reload.
  await expect(state).toHaveText('Sleeping', { timeout: 90_000 });
  await expect(page.getByTestId('sleeping-note')).toHaveText('Sleeping: nobody was playing. Start it, or join it, to wake it up.');
  await expect(page.getByText('The server is sleeping. Start it, or join it, to see its CPU, memory and players here.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Kill', exact: true })).toBeDisabled();

  // The servers list shows the same badge.
  await page.goto('/servers');
  await expect(page.getByTestId('server-state').first()).toHaveText('Sleeping');
  await page.goto(serverPath);
  await expect(state).toHaveText('Sleeping');

  // Start wakes it: Waking up, then Online.
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(state).toHaveText(/Waking up|Online/);
  await expect(state).toHaveText('Online', { timeout: 30_000 });
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(state).toHaveText('Offline', { timeout: 30_000 });
});

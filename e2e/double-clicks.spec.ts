import { expect, test } from '@playwright/test';
import { PASSWORD, registerThroughForm, signIn, uniqueEmail } from './helpers.ts';

test('a double click on Change password changes it once and says only that it worked', async ({ page }) => {
  const email = uniqueEmail('dblpw');
  await registerThroughForm(page, email);
  await page.goto('/account/security');
  const sent: Promise<unknown>[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/v1/user/password')) sent.push(request.response());
  });

  const newPassword = 'another long enough password';
  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByLabel('New password', { exact: true }).fill(newPassword);
  await page.getByLabel('Confirm new password').fill(newPassword);
  const button = page.getByRole('button', { name: 'Change password' });
  const toasts = page.getByRole('region', { name: /^Notifications/ });
  await button.dblclick();
  await expect(toasts.getByText('Password changed')).toBeVisible();
  await Promise.all(sent);
  expect(sent).toHaveLength(1);

  // A slower double click lands after the answer: the emptied form must not send the old password again.
  await button.click();
  await expect(page.getByText('The current password field is required')).toBeVisible();
  await Promise.all(sent);
  expect(sent).toHaveLength(1);
  await expect(page.getByText('The password is not correct')).toHaveCount(0);
  await expect(page.getByText('Whoopsie!')).toHaveCount(0);

  await page.context().clearCookies();
  await signIn(page, email, newPassword);
  await expect(page).toHaveURL(/\/servers$/);
});

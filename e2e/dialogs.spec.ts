import { expect, test } from '@playwright/test';
import { createServerThroughForm, PASSWORD, registerThroughForm, uniqueEmail, uniqueName, verifiedAccount } from './helpers.ts';

test('the confirm dialog offers its action and Cancel; outside production an unknown failure shows its details', async ({
  page,
  playwright,
  baseURL,
}) => {
  const email = uniqueEmail('confirm');
  await registerThroughForm(page, email);
  // A second session, so "Sign out all other sessions" has something to do.
  const other = await playwright.request.newContext({ baseURL });
  expect((await other.post('/v1/auth/login', { data: { emailAddress: email, password: PASSWORD } })).ok()).toBe(true);
  await page.goto('/account/security');
  await expect(page.getByTestId('session-list').getByRole('listitem')).toHaveCount(2);

  // Cancel closes the dialog and does nothing.
  await page.getByRole('button', { name: 'Sign out all other sessions' }).click();
  let dialog = page.getByRole('dialog', { name: 'Sign out everywhere else?' });
  await expect(dialog.getByRole('button', { name: 'Sign out others' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('session-list').getByRole('listitem')).toHaveCount(2);

  // The e2e product runs outside production: an unexpected failure says what happened, inside the dialog
  // (a toast would sit under its backdrop), and the dialog stays open with Cancel so the user can back out.
  await page.route('**/v1/user/sessions/revoke-others', (route) =>
    route.fulfill({
      status: 500,
      contentType: 'application/json',
      body: JSON.stringify({
        status: 'INTERNAL_ERROR',
        message: 'Something went wrong on our side. Please try again.',
        details: 'Error: connect ECONNREFUSED 127.0.0.1:5432',
      }),
    }),
  );
  await page.getByRole('button', { name: 'Sign out all other sessions' }).click();
  dialog = page.getByRole('dialog', { name: 'Sign out everywhere else?' });
  await dialog.getByRole('button', { name: 'Sign out others' }).click();
  const failure = dialog.getByRole('alert');
  await expect(failure).toContainText('Something went wrong on our side. Please try again.');
  await expect(failure).toContainText('Error: connect ECONNREFUSED 127.0.0.1:5432');
  await expect(page.getByText('Whoopsie!')).toHaveCount(0);
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeEnabled();

  await page.unroute('**/v1/user/sessions/revoke-others');
  await dialog.getByRole('button', { name: 'Sign out others' }).click();
  await expect(page.getByText('Other sessions signed out')).toBeVisible();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('session-list').getByRole('listitem')).toHaveCount(1);
  await other.dispose();
});

test('outside production an answer the page cannot read shows what was wrong with it', async ({ page }) => {
  await registerThroughForm(page, uniqueEmail('badanswer'));
  await page.route('**/v1/user/referral', (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ status: 'SUCCESS', result: { code: 7 } }) }),
  );
  await page.goto('/affiliate');
  await expect(page.getByText('The server sent an answer this page does not understand. Reload the page.')).toBeVisible();
  // The details name the field that did not fit and why.
  await expect(page.getByText('code: Invalid input: expected string, received number')).toBeVisible();
});

test('deleting the account asks for the password unseen and says a wrong one inside the dialog', async ({ page }) => {
  await registerThroughForm(page, uniqueEmail('leaving'));
  await page.goto('/account');
  await page.getByRole('button', { name: 'Delete account' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
  const password = dialog.getByLabel('Password');
  await expect(password).toHaveAttribute('type', 'password');
  await password.fill('not my password');
  await dialog.getByRole('button', { name: 'Continue' }).click();
  // Said where the user looks (a toast would sit under the dialog's backdrop); the dialog stays.
  await expect(dialog.getByRole('alert')).toContainText(/password/i);
  await page.screenshot({ path: test.info().outputPath('delete-account-refused-1280.png') });
  await password.fill(PASSWORD);
  await dialog.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText('Account deleted')).toBeVisible();
});

test('deleting a server needs its name typed; Cancel keeps it', async ({ page }) => {
  await verifiedAccount(page, 'delsrv');
  const name = uniqueName('del-', 8);
  const base = await createServerThroughForm(page, name);
  await page.getByRole('button', { name: 'Delete server' }).click();
  const dialog = page.getByRole('dialog', { name: `Delete ${name}?` });
  const confirm = dialog.getByRole('button', { name: 'Delete server' });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(`Type ${name} to confirm`).fill(name.slice(0, -1));
  await expect(confirm).toBeDisabled();
  await page.screenshot({ path: test.info().outputPath('delete-server-1280.png') });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await page.goto(base);
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();

  await page.getByRole('button', { name: 'Delete server' }).click();
  await dialog.getByLabel(`Type ${name} to confirm`).fill(name);
  await confirm.click();
  await expect(page).toHaveURL(/\/servers$/);
  await expect(page.getByText('Server deleted')).toBeVisible();
  await expect(page.getByRole('link', { name, exact: true })).toHaveCount(0);
});

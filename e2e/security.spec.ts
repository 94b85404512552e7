import { expect, test, type Page } from '@playwright/test';
import * as OTPAuth from 'otpauth';
import { PASSWORD, registerThroughForm, signIn, uniqueEmail } from './helpers.ts';

async function typeCode(page: Page, code: string) {
  await page.getByRole('textbox', { name: 'Digit 1' }).click();
  for (const digit of code) await page.keyboard.type(digit);
}

test('turn on two-factor from the QR secret, sign in with a code, turn it off', async ({ page }) => {
  const email = uniqueEmail('tfa');
  await registerThroughForm(page, email);
  await page.goto('/account/security');
  await page.getByRole('button', { name: 'Turn on' }).click();
  const dialog = page.getByRole('dialog', { name: 'Turn on two-factor authentication' });
  await expect(dialog.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible();
  const secret = (await dialog.getByTestId('twofactor-secret').textContent())?.trim() ?? '';
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 });

  // A wrong code clears the boxes.
  const right = totp.generate();
  const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
  await typeCode(page, wrong);
  await expect(dialog.getByText('The two-factor code is incorrect.')).toBeVisible();
  await expect(dialog.getByRole('textbox', { name: 'Digit 1' })).toHaveValue('');

  await typeCode(page, right);
  const success = page.getByRole('dialog', { name: 'Two-factor authentication is on' });
  await expect(success.getByTestId('recovery-codes').locator('li')).toHaveCount(10);
  const recoveryCodes = await success.getByTestId('recovery-codes').locator('li').allTextContents();
  await success.getByRole('button', { name: 'I saved them' }).click();
  await expect(page.getByText('On. Signing in asks for a code from your authenticator app.')).toBeVisible();

  await page.getByRole('button', { name: 'Sign out' }).first().click();
  await signIn(page, email);
  await expect(page.getByRole('heading', { name: 'Two-factor authentication' })).toBeVisible();
  // The next 30-second step: the current one was spent turning two-factor on.
  await typeCode(page, totp.generate({ timestamp: Date.now() + 30_000 }));
  await expect(page).toHaveURL(/\/servers$/);

  await page.goto('/account/security');
  await expect(page.getByTestId('activity-list')).toContainText('Two-factor authentication turned on');
  await page.getByRole('button', { name: 'Turn off' }).click();
  const off = page.getByRole('dialog', { name: 'Turn off two-factor authentication' });
  // Both app codes of the ±1 window are spent by now, so confirm with a recovery code.
  await off.getByRole('button', { name: 'Use a recovery code' }).click();
  await off.getByLabel('Recovery code').fill(recoveryCodes[0] ?? '');
  await off.getByRole('button', { name: 'Turn off' }).click();
  await expect(page.getByText('Two-factor disabled')).toBeVisible();
  await expect(off).toHaveCount(0);
  await expect(page.getByText('Off. Add a second step to signing in with an authenticator app.')).toBeVisible();

  // The toast sits over the header's Sign out (top right), and one under the pointer stays: close it, as a person would.
  await page.getByRole('button', { name: 'Close toast' }).click();
  await expect(page.getByText('Two-factor disabled')).toHaveCount(0);
  await page.getByRole('button', { name: 'Sign out' }).first().click();
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/servers$/);
});

test('pages run under the Content-Security-Policy without violations', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await registerThroughForm(page, uniqueEmail('csp'));
  await page.goto('/account/security');
  await expect(page.getByRole('heading', { name: 'Security' })).toBeVisible();
  expect(violations).toEqual([]);
});

import { expect, test } from '@playwright/test';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

// The embedded sandbox provider stands where Stripe's page would (PAYMENT_PROVIDER=sandbox by default
// outside production): its page declines or pays, and the balance changes from the provider's side.
test('billing: add billing information, a declined top-up moves nothing, a paid one is credited with a receipt', async ({ page }) => {
  await verifiedAccount(page, 'billing');
  await page.goto('/account');
  await expect(page.getByTestId('account-balance')).toHaveText('$0.00');
  await page.getByRole('link', { name: 'Top up and billing' }).click();
  await expect(page.getByRole('heading', { name: 'Balance and billing', level: 1 })).toBeVisible();
  await expect(page.getByText('No transactions yet.')).toBeVisible();

  // No billing information yet: the dialog says so instead of taking a payment.
  await page.getByRole('button', { name: 'Top up' }).click();
  await expect(page.getByText('Add your billing information first')).toBeVisible();
  await page.getByRole('button', { name: 'Close' }).click();

  // Field by field: the server names what is missing.
  await page.getByRole('button', { name: 'Save billing information' }).click();
  await expect(page.getByText('Enter the name to bill.')).toBeVisible();
  await page.getByLabel('Name or company').fill('Ada Lovelace');
  await page.getByLabel('Street address').fill('12 Analytical Row');
  await page.getByLabel('Postal code').fill('NW1 4RY');
  await page.getByLabel('City').fill('London');
  await page.getByLabel('Country').selectOption({ label: 'United Kingdom' });
  await page.getByLabel('VAT number (optional)').fill('gb 123 456 789');
  await page.getByRole('button', { name: 'Save billing information' }).click();
  await expect(page.getByText('Billing information saved')).toBeVisible();
  await expect(page.getByLabel('VAT number (optional)')).toHaveValue('GB123456789');

  // A declined card: back on the billing page, told, nothing credited.
  await page.getByRole('button', { name: 'Top up' }).click();
  await page.getByRole('button', { name: '$10.00', exact: true }).click();
  await page.getByRole('button', { name: 'Pay $10.00' }).click();
  await expect(page.getByTestId('checkout-amount')).toHaveText('$10.00');
  await page.getByRole('button', { name: 'Decline (a refused card)' }).click();
  await expect(page.getByText('The payment was declined')).toBeVisible();
  await expect(page.getByTestId('balance')).toHaveText('$0.00');

  // Another amount, paid: credited, listed, with its receipt.
  await page.getByRole('button', { name: 'Top up' }).click();
  await page.getByLabel(/Or another amount/).fill('25');
  await page.getByRole('button', { name: 'Pay $25.00' }).click();
  // The checkout page, loaded (a screenshot taken while it was still being navigated to failed the test).
  await expect(page.getByTestId('checkout-amount')).toHaveText('$25.00');
  await page.screenshot({ path: test.info().outputPath('checkout-sandbox-1280.png'), fullPage: true });
  await page.getByRole('button', { name: 'Pay $25.00' }).click();
  await expect(page.getByText('Payment received')).toBeVisible();
  await expect(page.getByTestId('balance')).toHaveText('$25.00');
  const row = page.getByTestId('transaction').first();
  await expect(row).toContainText('Top-up by card (sandbox)');
  await expect(row).toContainText('+$25.00');
  await page.screenshot({ path: test.info().outputPath('billing-1280.png'), fullPage: true });

  await row.getByRole('link', { name: 'Receipt' }).click();
  const receipt = page.getByTestId('receipt');
  await expect(receipt).toContainText(/Receipt SP-\d{6}/);
  await expect(receipt).toContainText('Ada Lovelace');
  // A top-up is money in: credited to the account, not billed.
  await expect(receipt).toContainText(/Credited to/i);
  await expect(receipt).toContainText('United Kingdom');
  await expect(receipt).toContainText('VAT GB123456789');
  await expect(receipt).toContainText('$25.00');

  for (const path of ['/account/billing', page.url()]) {
    await page.setViewportSize({ width: 360, height: 800 });
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
  }
  await page.screenshot({ path: test.info().outputPath('receipt-360.png'), fullPage: true });
  await page.goto('/account/billing');
  await page.screenshot({ path: test.info().outputPath('billing-360.png'), fullPage: true });
});

test('upgrade and shop: a plan is bought from the balance, the server gets its limits, an icon is bought and chosen, renewal turned off', async ({
  page,
}) => {
  await verifiedAccount(page, 'upgrade');
  const base = await createServerThroughForm(page, uniqueName('up', 9));
  await page.goto(`${base}/upgrade`);
  await expect(page.getByTestId('current-plan')).toContainText('Free plan');
  await expect(page.getByTestId('plan-card')).toHaveCount(4);

  // Buying before there is any billing information says so, and leads to Billing instead of a Pay button
  // that can only fail.
  await page.getByRole('button', { name: 'Buy for $4.99 (Starter)' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: 'Add your billing information first' })).toBeVisible();
  await expect(dialog.getByRole('button', { name: /^Pay/ })).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Go to Billing' }).click();
  await expect(page).toHaveURL(/\/account\/billing$/);

  // Billing information and a top-up first (the sandbox's page pays).
  await page.getByLabel('Name or company').fill('Grace Hopper');
  await page.getByLabel('Street address').fill('1 Harbour St');
  await page.getByLabel('City').fill('Arlington');
  await page.getByLabel('Country').selectOption({ label: 'United States' });
  await page.getByRole('button', { name: 'Save billing information' }).click();
  await expect(page.getByText('Billing information saved')).toBeVisible();
  await page.getByRole('button', { name: 'Top up' }).click();
  await page.getByRole('button', { name: 'Pay $10.00' }).click();
  // The checkout page, drawn (a click while it was still being navigated to did nothing once in CI).
  await expect(page.getByTestId('checkout-amount')).toHaveText('$10.00');
  await page.getByRole('button', { name: 'Pay $10.00' }).click();
  await expect(page.getByTestId('balance')).toHaveText('$10.00');

  await page.goto(`${base}/upgrade`);
  await expect(page.getByTestId('plan-balance')).toHaveText('$10.00');
  // More than the balance: it says how much is missing rather than offering to pay.
  await page.getByRole('button', { name: /^Buy for \$\d+\.\d\d \(Network\)$/ }).click();
  await expect(dialog.getByRole('heading', { name: 'Top up your balance first' })).toBeVisible();
  await expect(dialog).toContainText('your balance is $10.00');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Buy for $4.99 (Starter)' }).click();
  await expect(page.getByText('$4.99 is taken from your balance now for one month')).toBeVisible();
  await page.getByRole('button', { name: 'Pay $4.99' }).click();
  await expect(page.getByText('Starter is active')).toBeVisible();
  await expect(page.getByTestId('current-plan')).toContainText('Starter plan');
  await expect(page.getByTestId('current-plan')).toContainText(/Renews on .+ for \$4\.99/);
  await expect(page.getByTestId('plan-balance')).toHaveText('$5.01');
  // The upgrade quote is prorated for the days left of the period (here almost all of it).
  await expect(page.getByRole('button', { name: /\(Community\)$/ })).toHaveText(/Upgrade for \$8\.0\d/);
  await page.screenshot({ path: test.info().outputPath('upgrade-1280.png'), fullPage: true });

  // The limits changed at once: backups kept, and the slots the overview counts against.
  await page.goto(`${base}/backups`);
  await expect(page.getByText(/of 10 backups|10 backups/).first()).toBeVisible();
  // The overview's plan panel names the plan the server is on.
  await page.goto(base);
  await expect(page.getByRole('heading', { name: 'Starter plan' })).toBeVisible();

  // The shop: an icon bought with what is left, then chosen in Appearance.
  await page.goto(`${base}/appearance`);
  const gallery = page.getByTestId('shop-icons');
  await expect(gallery.getByRole('link', { name: 'Unlock in the shop' }).first()).toBeVisible();
  await page.goto(`${base}/shop`);
  await expect(page.getByTestId('shop-balance')).toHaveText('$5.01');
  await page.getByRole('button', { name: 'Buy for $0.99 (Heart)' }).click();
  await page.getByRole('button', { name: 'Pay $0.99' }).click();
  await expect(page.getByText('Heart bought')).toBeVisible();
  await expect(page.getByTestId('shop-balance')).toHaveText('$4.02');
  await page.screenshot({ path: test.info().outputPath('shop-1280.png'), fullPage: true });
  await page.getByRole('link', { name: 'Owned — choose it in Appearance' }).click();
  await page.getByRole('button', { name: 'Use the Heart icon' }).click();
  await expect(page.getByText('Heart icon chosen')).toBeVisible();
  // The chosen icon says so instead of offering itself again.
  await expect(gallery.getByRole('listitem').filter({ hasText: 'Heart' }).getByText('In use')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Use the Heart icon' })).toHaveCount(0);
  await expect(page.getByRole('img', { name: 'The current icon' })).toHaveAttribute('src', /^data:image\/png;base64,/);

  await page.goto(`${base}/upgrade`);
  await page.getByRole('button', { name: 'Turn renewal off' }).click();
  await expect(page.getByTestId('current-plan')).toContainText(/Ends on .+; the server is on Free from then on/);
  await page.setViewportSize({ width: 360, height: 800 });
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
  await page.screenshot({ path: test.info().outputPath('upgrade-360.png'), fullPage: true });
});

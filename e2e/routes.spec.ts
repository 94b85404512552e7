import { routeTable } from '@spawnpoint/contracts';
import { expect, test } from '@playwright/test';
import { registerThroughForm, uniqueEmail } from './helpers.ts';

// A post and a page that exist (blog pages exist only as prerendered at build, from apps/web/content/blog).
const concrete = (path: string) =>
  path
    .replace(':id', 'srv123')
    .replace(':slug', 'nether-hubs-explained')
    .replace(':current', '2')
    .replace(':entryId', 'entry123')
    .replace(':paymentId', 'pay123')
    .replace(':name', 'some-server');

test('an unknown path shows the 404 page with its exact text and HTTP 404', async ({ page }) => {
  const response = await page.goto('/this/does/not/exist');
  expect(response?.status()).toBe(404);
  await expect(page.getByText('404', { exact: true })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await expect(page.getByText('Sorry, the page you are looking for is not found.')).toBeVisible();
  await expect(page.getByText('/this/does/not/exist')).toBeVisible();
  await page.getByRole('link', { name: 'Back to the home page' }).click();
  await expect(page).toHaveURL(/\/$/);
});

test('unknown blog posts and pages show the same 404 page with their path and HTTP 404', async ({ page }) => {
  // A public server page only exists for a name a server could have: other text is not shown as a heading.
  for (const path of [
    '/blog/nope',
    '/blog/page/9',
    '/blog/page/abc',
    '/server-list/Spawnpoint%20is%20closing%20-%20move%20to%20evil.example',
  ]) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(404);
    await expect(page.getByText('404', { exact: true }), path).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Page not found' }), path).toBeVisible();
    await expect(page.getByText('Sorry, the page you are looking for is not found.'), path).toBeVisible();
    await expect(page.getByText(path, { exact: true }), path).toBeVisible();
    await expect(page.getByRole('link', { name: 'Back to the home page' }), path).toBeVisible();
    // Inside the site's header and footer, as on any other unknown path.
    await expect(page.getByRole('banner'), path).toBeVisible();
  }
});

test('a broken address (a bad % escape) shows the same 404 page, not an error', async ({ page }) => {
  const response = await page.goto('/blog/%E0%A4%A');
  expect(response?.status()).toBe(404);
  await expect(page.getByText('404', { exact: true })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Back to the home page' })).toBeVisible();
});

test('every route of the table gives a signed-out visitor the right page or redirect', async ({ page }) => {
  for (const route of routeTable) {
    const path = concrete(route.path);
    const response = await page.goto(path);
    // No server lists the name 'some-server': its page shows "not found" and answers 404 (servers.spec
    // loads a listed one and sees 200).
    expect(response?.status(), path).toBe(route.name === 'server-list-name' ? 404 : 200);
    if (route.access === 'authenticated') {
      await expect(page, path).toHaveURL(
        new RegExp(`/login\\?redirect=${encodeURIComponent(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
      );
    } else {
      await expect(page, path).toHaveURL(new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
      await expect(page.locator('h1').first(), path).toBeVisible();
    }
  }
});

test('every route of the table gives a signed-in user the right page or redirect', async ({ page }) => {
  await registerThroughForm(page, uniqueEmail('routes'));
  for (const route of routeTable) {
    const path = concrete(route.path);
    await page.goto(path);
    if (route.access === 'unauthenticated' || route.path === '/') {
      await expect(page, path).toHaveURL(/\/servers$/);
    } else {
      await expect(page, path).toHaveURL(new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
      await expect(page.locator('h1').first(), path).toBeVisible();
    }
  }
});

test('/support paths leave for the help site', async ({ request }) => {
  for (const path of ['/support', '/support/billing/refunds']) {
    const response = await request.get(path, { maxRedirects: 0 });
    expect(response.status()).toBe(302);
    expect(response.headers().location).toBe('https://help.spawnpoint.gg');
  }
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('the landing page is prerendered with its content', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your own Minecraft server. Free, and ready in seconds.');
    await expect(page.getByRole('link', { name: 'Create your free server' })).toBeVisible();
    await expect(page).toHaveTitle('Spawnpoint: Free Minecraft server hosting');
  });
});

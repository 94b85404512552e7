import { expect, test } from '@playwright/test';
import { registerThroughForm, uniqueEmail, verifiedAccount } from './helpers.ts';

const publicPages = [
  { path: '/', heading: 'Your own Minecraft server. Free, and ready in seconds.' },
  { path: '/pricing', heading: 'Plans and prices' },
  { path: '/affiliate', heading: 'Affiliate programme' },
  { path: '/blog', heading: 'Blog' },
  { path: '/blog/page/2', heading: 'Blog' },
  { path: '/blog/how-sleeping-servers-work', heading: 'How sleeping servers work (and why your world is safe)' },
  { path: '/cookie-policy', heading: 'Cookie policy' },
  { path: '/privacy-policy', heading: 'Privacy policy' },
  { path: '/terms-of-service', heading: 'Terms of service' },
  { path: '/giveaway/10-minecraft-accounts', heading: 'Giveaway: 10 Minecraft accounts' },
  { path: '/tools/nether-portal-calculator', heading: 'Nether portal calculator' },
];

test('prerendered HTML carries the content, a unique title and description, canonical and Open Graph tags', async ({ request }) => {
  const titles = new Set<string>();
  for (const { path, heading } of publicPages) {
    const response = await request.get(path, { maxRedirects: 0 });
    expect(response.status(), path).toBe(200);
    const html = await response.text();
    const text = html.replace(/<!--.*?-->/g, '');
    expect(text, path).toContain(heading.replace(/&/g, '&amp;').replace(/'/g, '&#x27;').replace(/\(/g, '('));
    const title = /<title>([^<]+)<\/title>/.exec(html)?.[1];
    expect(title, path).toBeTruthy();
    titles.add(`${title}`);
    expect(html, path).toMatch(/<meta name="description" content="[^"]{40,}"/);
    expect(html, path).toContain(`<link rel="canonical" href="http://localhost:3000${path === '/' ? '/' : path}"`);
    expect(html, path).toMatch(/<meta property="og:title" content="[^"]+"/);
  }
  expect(titles.size).toBe(publicPages.length);
  const sitemap = await (await request.get('/sitemap.xml')).text();
  expect(sitemap).toContain('<loc>http://localhost:3000/blog/nether-hubs-explained</loc>');
  expect(await (await request.get('/robots.txt')).text()).toContain('Sitemap: http://localhost:3000/sitemap.xml');
  const rss = await (await request.get('/blog/rss.xml')).text();
  expect(rss.match(/<item>/g)).toHaveLength(4);
});

test('every public page shows its content and links to the others; no request leaves for a third-party host', async ({ page }) => {
  const foreign: string[] = [];
  page.on('request', (r) => {
    const host = new URL(r.url()).hostname;
    if (!['localhost', '127.0.0.1'].includes(host) && !r.url().startsWith('data:')) foreign.push(r.url());
  });
  // A signed-out visit makes no failed request (asking who is signed in once answered 401 on every page).
  const failed: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  for (const { path, heading } of publicPages) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1, name: heading }), path).toBeVisible();
  }
  await page.goto('/');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Pricing' }).click();
  await expect(page.getByTestId('price-starter')).toHaveText('$4.99');
  // Paid plans are bought for a server from its Upgrade tab: the page leads to an account first.
  await expect(page.getByRole('link', { name: 'Start free, then upgrade' }).first()).toHaveAttribute('href', '/register');
  await page.getByRole('navigation', { name: 'Product' }).getByRole('link', { name: 'Blog' }).click();
  await page.getByRole('link', { name: 'Reading the server console like a pro' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Reading the server console like a pro');
  await expect(page.getByText(/min read/)).toBeVisible();
  await page.getByRole('link', { name: /Previous/ }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your first hour on a new server: a checklist');
  await page.goto('/blog');
  await page.getByRole('link', { name: 'Older posts →' }).click();
  await expect(page).toHaveURL(/\/blog\/page\/2$/);
  await expect(page.getByText('Page 2 of 2')).toBeVisible();
  expect(foreign).toEqual([]);
  expect(failed).toEqual([]);
});

test('the landing and pricing pages load only the small site script, which still knows who is signed in', async ({ page, request }) => {
  for (const path of ['/', '/pricing']) {
    const html = await (await request.get(path)).text();
    const scripts = [...html.matchAll(/<script[^>]*>/g)].map((m) => m[0]);
    expect(scripts, path).toEqual([expect.stringMatching(/^<script type="module" src="\/assets\/site-[0-9a-f]+\.js">$/)]);
    expect(html, path).not.toContain('modulepreload');
  }
  // A signed-out visitor keeps the landing page; a signed-in user is sent on to their servers.
  await page.goto('/');
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sign in' })).toBeVisible();
  await registerThroughForm(page, uniqueEmail('static'));
  await page.goto('/');
  await expect(page).toHaveURL(/\/servers$/);
  await page.goto('/pricing');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Servers' })).toBeVisible();
  await nav.getByRole('button', { name: 'Sign out' }).click();
  await expect(nav.getByRole('link', { name: 'Sign in' })).toBeVisible();
  expect(((await (await page.request.get('/v1/user/me')).json()) as { status: string }).status).toBe('NOT_AUTHENTICATED');
});

test('the API docs page fits a phone, is styled, and breaks no rule of its policy', async ({ page }) => {
  const refused: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') refused.push(message.text());
  });
  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto('/v1/docs');
  await expect(page.getByRole('heading', { level: 1, name: 'Spawnpoint API' })).toBeVisible();
  await expect(page.getByRole('cell', { name: '/v1/user/servers', exact: true })).toBeVisible();
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
  // Its style sheet applied (the browser's default is a serif face and no rules between rows).
  expect(await page.evaluate('getComputedStyle(document.body).fontFamily')).toContain('system-ui');
  await page.getByRole('link', { name: '/v1/openapi.json' }).focus();
  await expect(page.getByRole('link', { name: '/v1/openapi.json' })).toBeFocused();
  expect(refused).toEqual([]);
});

test('the nether portal calculator converts instantly and gives a /tp command', async ({ page }) => {
  await page.goto('/tools/nether-portal-calculator');
  await page.getByLabel('x', { exact: true }).fill('-1000');
  await page.getByLabel('y', { exact: true }).fill('200');
  await page.getByLabel('z', { exact: true }).fill('7');
  await expect(page.getByTestId('nether-command')).toHaveText('/tp @s -125 126 0');
  await page.getByLabel('the Nether').check();
  await expect(page.getByTestId('nether-command')).toHaveText('/tp @s -8000 200 56');
});

test('enter the giveaway once; a second entry is refused', async ({ page }) => {
  await verifiedAccount(page, 'give');
  await page.goto('/giveaway/10-minecraft-accounts');
  await expect(page.getByTestId('giveaway-entries')).toHaveText(/^\d+$/);
  const before = Number(await page.getByTestId('giveaway-entries').textContent());
  await page.getByRole('button', { name: 'Enter the giveaway' }).click();
  await expect(page.getByText('You are in. Good luck!')).toBeVisible();
  await expect(page.getByTestId('giveaway-entries')).toHaveText(String(before + 1));
  const again = await page.request.post('/v1/giveaway/10-minecraft-accounts/enter', { data: {} });
  expect(await again.json()).toMatchObject({ status: 'INVALID_STATE', message: 'You have already entered this giveaway. Good luck!' });
});

test('a referral code from ?r= is kept across registration and credited', async ({ page, browser }) => {
  await registerThroughForm(page, uniqueEmail('referrer'));
  await page.goto('/affiliate');
  const link =
    (await page.getByRole('button', { name: /^Referral link: / }).getAttribute('aria-label'))?.match(/(http\S+?)\. Copy$/)?.[1] ?? '';
  expect(link).toMatch(/\/\?r=/);
  await expect(page.getByTestId('referred-users')).toHaveText('Nobody has signed up with your link yet: share it where your players are.');
  // Signed in already: no "Join for free" on the page.
  await expect(page.getByRole('link', { name: 'Join for free' })).toHaveCount(0);

  const visitor = await browser.newContext();
  const other = await visitor.newPage();
  await other.goto(link.replace('http://localhost:3000', ''));
  await other.getByRole('link', { name: 'Pricing' }).first().click();
  await registerThroughForm(other, uniqueEmail('referred'));
  await visitor.close();

  await page.reload();
  await expect(page.getByTestId('referred-users')).toHaveText('1 player has signed up with your link.');
});

import { expect, type Page } from '@playwright/test';
import { isRestrictedName } from '@spawnpoint/contracts';
import { mailsTo } from '../apps/api/src/test/mails.ts';

export const PASSWORD = 'a long enough password';

let counter = 0;
export function uniqueEmail(prefix = 'e2e'): string {
  return `${prefix}-${Date.now().toString(36)}-${++counter}@example.com`;
}

/** Waits for the embedded mailer's `.eml` file to an address and returns the first link matching `pattern`. */
export async function linkFromMail(address: string, pattern: RegExp, subject: string): Promise<string> {
  let link: string | undefined;
  await expect
    .poll(() => {
      // Newest first: the latest mail of that subject wins.
      for (const text of mailsTo(process.env.E2E_DATA_DIR as string, address).reverse()) {
        if (!text.includes(`Subject: ${subject}`)) continue;
        link = text.match(pattern)?.[0];
        if (link) return link;
      }
      return undefined;
    })
    .toBeTruthy();
  return link as string;
}

export async function registerThroughForm(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.goto('/register');
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/servers$/);
}

export async function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * A signed-in account with a verified address, made through the API as the web app makes it (the sign-up
 * form and the verification page themselves are auth.spec.ts's): registers, confirms the mailed token, waits
 * until the local agent is connected, and opens /servers. The page shares the session cookie.
 */
export async function verifiedAccount(page: Page, prefix: string): Promise<string> {
  const email = uniqueEmail(prefix);
  const registered = await page.request.post('/v1/auth/register', { data: { emailAddress: email, password: PASSWORD } });
  expect(registered.status(), await registered.text()).toBe(200);
  const link = await linkFromMail(email, /http:\/\/localhost:\d+\/\?verify_token=[A-Za-z0-9_-]+/, 'Verify your Spawnpoint email address');
  const verified = await page.request.post('/v1/auth/verify', { data: { token: new URL(link).searchParams.get('verify_token') } });
  expect(verified.status(), await verified.text()).toBe(200);
  await expect
    .poll(async () => ((await (await page.request.get('/healthz')).json()) as { result: { agents: string[] } }).result.agents)
    .toContain('local');
  await page.goto('/servers');
  return email;
}

/** Creates a server from /servers/create (the account must be verified) and returns its page's path. */
export async function createServerThroughForm(page: Page, name: string): Promise<string> {
  await page.goto('/servers/create');
  await page.getByLabel('Server name').fill(name);
  await expect(page.getByText(`${name} is available.`)).toBeVisible();
  await page.getByRole('button', { name: 'Create server' }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page).not.toHaveURL(/\/create$/);
  return new URL(page.url()).pathname;
}

/**
 * A fresh server name: `prefix` and `length` characters that change with every call. Drawn again while the
 * name holds a word the product refuses in a join address (random letters spell `sex` now and then).
 */
export function uniqueName(prefix: string, length = 8): string {
  let name = '';
  do name = `${prefix}${(Date.now().toString(36) + Math.random().toString(36).slice(2)).slice(-length)}`;
  while (isRestrictedName(name));
  return name;
}

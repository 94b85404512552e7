import { expect, test } from '@playwright/test';
import { createServerThroughForm, linkFromMail, PASSWORD, uniqueEmail, uniqueName, verifiedAccount } from './helpers.ts';

test('an invited friend registers from the mailed link, lands on the server and is offered only what a moderator may do', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const ownerContext = await browser.newContext();
  const owner = await ownerContext.newPage();
  await verifiedAccount(owner, 'owner');
  const name = uniqueName('crew', 8);
  const serverPath = await createServerThroughForm(owner, name);

  await owner.goto(`${serverPath}/subusers`);
  const friend = uniqueEmail('friend');
  await owner.getByLabel('Email address').fill(friend);
  await owner.getByLabel('Role', { exact: true }).selectOption('moderator');
  await owner.getByRole('button', { name: 'Send invitation' }).click();
  await expect(owner.getByRole('region', { name: 'Pending invitations' }).getByText(friend)).toBeVisible();

  const link = await linkFromMail(
    friend,
    /http:\/\/localhost:\d+\/\?invite_token=[A-Za-z0-9_-]+/,
    `You are invited to ${name} on Spawnpoint`,
  );
  const friendContext = await browser.newContext();
  const page = await friendContext.newPage();
  await page.goto(link);
  // Signed out: the app asks to register, keeping the token through it, and says who invited whom to what,
  // with the invited address already in the form.
  await expect(page).toHaveURL(/\/register$/);
  const banner = page.getByTestId('invite-banner');
  await expect(banner).toContainText(`invited you to ${name} as a moderator`);
  await expect(banner).toContainText(friend);
  await expect(page.getByLabel('Email address')).toHaveValue(friend);
  await page.screenshot({ path: test.info().outputPath('invited-register-1280.png') });
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByText('Server invite accepted')).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`${serverPath}$`));
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page.getByText('You are a moderator')).toBeVisible();

  // A moderator: console, players and power, but no files to change, no members, no deletion.
  const tabs = page.getByRole('navigation', { name: 'Server' });
  await expect(tabs.getByRole('link', { name: 'Console' })).toBeVisible();
  await expect(tabs.getByRole('link', { name: 'Members' })).toHaveCount(0);
  await expect(tabs.getByRole('link', { name: 'Properties' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Start', exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Delete server' })).toHaveCount(0);

  // Backups: a moderator makes them but cannot restore, delete, lock or unlock one.
  const serverId = serverPath.split('/').at(-1) ?? '';
  expect((await owner.request.post(`/v1/server/${serverId}/backups`)).ok()).toBe(true);
  await page.goto(`${serverPath}/backups`);
  const row = page.getByTestId('backup-row');
  await expect(row).toHaveCount(1, { timeout: 30_000 });
  await expect(row.getByRole('link', { name: 'Download' })).toBeVisible();
  for (const action of ['Restore', 'Delete', 'Lock']) await expect(row.getByRole('button', { name: action })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Create backup' })).toBeEnabled();

  // The owner sees the friend as a member; lowering them to viewer takes the console input away at once,
  // on the console the friend has open.
  await page.goto(`${serverPath}/console`);
  await expect(page.getByPlaceholder('Start the server first')).toBeVisible();
  await owner.reload();
  await owner.getByLabel(`Role of ${friend}`).selectOption('viewer');
  await expect(owner.getByText(`${friend} is now viewer.`)).toBeVisible();
  await expect(page.getByPlaceholder('Your role cannot send commands')).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Start', exact: true })).toHaveCount(0);

  // A viewer reads files: nothing that would change them is offered, and the editor is read-only.
  await page.goto(`${serverPath}/files`);
  await expect(page.getByRole('note').getByText('can read and download files but not change them')).toBeVisible();
  await expect(page.getByRole('button', { name: 'server.properties' })).toBeVisible();
  for (const action of ['Upload files', 'Upload a folder', 'New folder', 'New file'])
    await expect(page.getByRole('button', { name: action })).toHaveCount(0);
  await expect(page.getByLabel('Select server.properties')).toHaveCount(0);
  await expect(page.getByText('drop files or folders anywhere here')).toHaveCount(0);
  await page.getByRole('button', { name: 'server.properties' }).click();
  await expect(page.getByText('Read-only for your role')).toBeVisible();
  await expect(page.locator('.cm-content')).toHaveAttribute('contenteditable', 'false');
  await expect(page.getByRole('button', { name: 'Save' })).toHaveCount(0);

  // Removed by the owner with the console open: the page leaves it and says why; the server is gone from
  // their list. (Leaving on one's own is members.test's "a member leaves a server on their own".)
  await page.goto(`${serverPath}/console`);
  await expect(page.getByRole('log', { name: 'Console output' })).toBeVisible();
  await owner.getByRole('button', { name: `Remove ${friend}` }).click();
  await owner.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
  await expect(owner.getByLabel(`Role of ${friend}`)).toHaveCount(0);
  await expect(page).toHaveURL(/\/servers$/);
  await expect(page.getByText(`You no longer have access to ${name}.`)).toBeVisible();
  await expect(page.getByTestId('server-card')).toHaveCount(0);

  await ownerContext.close();
  await friendContext.close();
});

import { routeTable } from '@spawnpoint/contracts';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

const PHONE = { width: 360, height: 800 };
// A name with nothing to break it at, and an archive, so its row has Extract as well as the menu.
const LONG_NAME = 'a-long-file-name-without-spaces-from-a-modpack-1.21.4.tar.gz';

/**
 * The page's own width against the window's, and (to say what to fix when it fails) the first elements
 * that reach past the right edge, leaving out those inside a box that scrolls or clips them (a tab bar).
 * A string: the e2e project has no DOM types.
 */
const measure = `(() => {
  const width = window.innerWidth;
  const clipped = (el) => {
    for (let box = el.parentElement; box && box !== document.body; box = box.parentElement) {
      if (getComputedStyle(box).overflowX !== 'visible') return true;
    }
    return false;
  };
  const culprits = [...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > width + 0.5 && !clipped(el))
    .slice(0, 6)
    .map((el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' "' + (el.textContent || '').trim().slice(0, 40) + '"');
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth: width, culprits };
})()`;

/** Fails (softly, so one run lists every page that scrolls sideways) when the page is wider than the window. */
async function expectNoSidewaysScroll(page: Page, where: string): Promise<void> {
  const { scrollWidth, innerWidth, culprits } = (await page.evaluate(measure)) as {
    scrollWidth: number;
    innerWidth: number;
    culprits: string[];
  };
  expect
    .soft(scrollWidth, `${where} is ${scrollWidth} px wide at ${innerWidth} px; past the edge: ${culprits.join(', ')}`)
    .toBeLessThanOrEqual(innerWidth);
}

/**
 * Checkboxes and radios less than 24 px either way, and the links and buttons of navigation lists less than 24 px tall (WCAG 2.5.8's
 * minimum target; links inside running text are exempt there and not looked at here), named to fix them.
 */
const smallTargets = `(() => [...document.querySelectorAll('input[type=checkbox], input[type=radio], nav a, nav button')]
  .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
  .filter((el) => {
    const box = el.getBoundingClientRect();
    // A checkbox squeezed narrow by a long label beside it is as hard to hit as a short one.
    return (el.matches('input') ? Math.min(box.width, box.height) : box.height) < 23.5;
  })
  .slice(0, 6)
  .map((el) => {
    const box = el.getBoundingClientRect();
    return el.tagName.toLowerCase() + ' "' + ((el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30)) + '" ' + Math.round(box.width) + '×' + Math.round(box.height) + ' px';
  }))()`;

/** What shows that a page has rendered its real content (not its loading state), by route name. */
const readyMarks: Record<string, (page: Page) => Locator> = {
  account: (page) => page.getByTestId('account-email'),
  'account-billing': (page) => page.getByLabel('Country'),
  'servers-id-upgrade': (page) => page.getByTestId('plan-card'),
  'servers-id-shop': (page) => page.getByTestId('shop-item'),
  'account-security': (page) => page.getByTestId('session-list'),
  servers: (page) => page.getByTestId('server-card'),
  'servers-create': (page) => page.getByLabel('Server name'),
  'servers-id': (page) => page.getByTestId('stat-cpu'),
  'servers-id-console': (page) => page.getByRole('log', { name: 'Console output' }).locator('.console-line'),
  'servers-id-files': (page) => page.getByTestId('file-row').filter({ hasText: LONG_NAME }),
  'servers-id-backups': (page) => page.getByTestId('backup-row'),
  'servers-id-properties': (page) => page.getByLabel('Message of the day'),
  'servers-id-players': (page) => page.getByRole('switch', { name: /Whitelist/ }),
  'servers-id-subusers': (page) => page.getByRole('heading', { name: 'Pending invitations' }),
  'servers-id-appearance': (page) => page.getByTestId('motd-preview'),
  'servers-id-plugins': (page) => page.getByTestId('catalogue-entry'),
  'servers-id-schedules': (page) => page.getByTestId('schedule-preview').getByRole('listitem'),
  // By then the log has the start, the backup and the upload, newest first.
  'servers-id-activity': (page) => page.getByTestId('server-activity').getByText('Uploaded a file'),
  editor: (page) => page.getByTestId('code-editor').locator('.cm-content'),
};

test('every dashboard page fits 360 px without sideways scroll, and file rows keep their actions in a menu', async ({ page }) => {
  test.setTimeout(180_000);
  await verifiedAccount(page, 'phone');
  // As long as a name may be (16), so the join address is as long as it gets.
  const base = await createServerThroughForm(page, uniqueName('phones-', 9));
  const serverId = base.split('/').pop() as string;
  // Running, so the overview shows its charts and every power button is live.
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Online', { timeout: 30_000 });
  // Content as a user has it: a backup in the list, and a file whose name is longer than a phone is wide.
  await page.goto(`${base}/backups`);
  await page.getByRole('button', { name: 'Create backup' }).click();
  await expect(page.getByTestId('backup-row')).toBeVisible({ timeout: 30_000 });
  await page.goto(`${base}/files`);
  await page.getByLabel('Files to upload').setInputFiles([{ name: LONG_NAME, mimeType: 'application/gzip', buffer: Buffer.from('x') }]);
  await expect(page.getByTestId('file-row').filter({ hasText: LONG_NAME })).toBeVisible();

  await page.setViewportSize(PHONE);
  const dashboard = routeTable.filter((route) => route.access === 'authenticated');
  expect(dashboard.length).toBeGreaterThanOrEqual(14);
  const pages = [
    ...dashboard.map((route) => ({ name: route.name, path: route.path.replace(':id', serverId) })),
    // The file editor is the files route with ?edit=.
    { name: 'editor', path: `${base}/files?path=/&edit=/server.properties` },
  ];
  for (const { name, path } of pages) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 }).first(), path).toBeVisible();
    const mark = readyMarks[name];
    if (mark) await expect(mark(page).first(), path).toBeVisible();
    await expectNoSidewaysScroll(page, path);
    expect.soft(await page.evaluate(smallTargets), `targets under 24 px on ${path}`).toEqual([]);
    await page.screenshot({ path: test.info().outputPath(`${name}-360.png`), fullPage: true });
  }

  // A public page's footer links are targets a finger can hit too.
  await page.goto('/pricing');
  await expect(page.getByRole('navigation', { name: 'Legal and help' })).toBeVisible();
  expect.soft(await page.evaluate(smallTargets), 'targets under 24 px on /pricing').toEqual([]);

  // The overview's power buttons and addresses are all on screen, not cut off by the card.
  await page.goto(base);
  await expect(page.getByTestId('stat-cpu')).toBeVisible();
  for (const control of [
    ...['Start', 'Stop', 'Restart', 'Kill'].map((label) => page.getByRole('button', { name: label, exact: true })),
    page.getByRole('button', { name: /^Join address: / }),
    page.getByRole('button', { name: /^Direct address: / }),
  ]) {
    const box = await control.boundingBox();
    expect(box, String(control)).not.toBeNull();
    expect(box ? box.x + box.width : Infinity, String(control)).toBeLessThanOrEqual(PHONE.width);
  }

  // The console at 360 px: a line of the built-in runtime keeps its time, not its long date.
  await page.goto(`${base}/console`);
  const dated = page
    .getByRole('log', { name: 'Console output' })
    .locator('.console-line')
    .filter({ has: page.locator('.console-date') });
  await expect(dated.first()).toBeVisible();
  await expect(dated.first().locator('.console-date')).toBeHidden();
  await expect(dated.first()).toHaveText(/^\d{2}:\d{2}:\d{2} /, { useInnerText: true });

  // Files at 360 px: a row's actions are in its menu, which the keyboard opens, moves through and closes.
  await page.goto(`${base}/files`);
  const row = page.getByTestId('file-row').filter({ has: page.getByRole('button', { name: 'server.properties', exact: true }) });
  const menuButton = row.getByRole('button', { name: 'Actions for server.properties' });
  await expect(menuButton).toBeVisible();
  await expect(row.getByRole('button', { name: 'Rename', exact: true })).toHaveCount(0);
  await menuButton.click();
  const menu = page.getByRole('menu', { name: 'Actions for server.properties' });
  await expect(menu.getByRole('menuitem', { name: 'Rename' })).toBeVisible();
  await expect(menu.getByRole('menuitem', { name: /^Permissions/ })).toBeVisible();
  await expect(menu.getByRole('menuitem', { name: 'Download' })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('servers-id-files-menu-360.png'), fullPage: true });
  const menuBox = await menu.boundingBox();
  expect(menuBox ? menuBox.x >= 0 && menuBox.x + menuBox.width <= PHONE.width : false).toBe(true);
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(menuButton).toBeFocused();

  // Enter opens on the first action; arrows, Home and End move (wrapping); Enter on an action runs it.
  await page.keyboard.press('Enter');
  await expect(menu.getByRole('menuitem').first()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: 'Rename' })).toBeFocused();
  await page.keyboard.press('End');
  await expect(menu.getByRole('menuitem', { name: /^Permissions/ })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem').first()).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(menu.getByRole('menuitem', { name: /^Permissions/ })).toBeFocused();
  await page.keyboard.press('Enter');
  const permissions = page.getByRole('dialog', { name: 'Permissions of server.properties' });
  await expect(permissions).toBeVisible();
  await expect(menu).toHaveCount(0);
  await permissions.getByRole('button', { name: 'Cancel' }).click();

  // Space opens it too; Tab leaves and closes it.
  await menuButton.focus();
  await page.keyboard.press(' ');
  await expect(menu).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(menu).toHaveCount(0);
  await menuButton.focus();
  await page.keyboard.press(' ');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  const rename = page.getByRole('dialog', { name: 'Rename or move server.properties' });
  await expect(rename).toBeVisible();
  await rename.getByRole('button', { name: 'Cancel' }).click();

  // Download from the menu still downloads.
  await menuButton.click();
  const download = page.waitForEvent('download');
  await menu.getByRole('menuitem', { name: 'Download' }).click();
  expect((await download).suggestedFilename()).toBe('server.properties');
  await expect(menu).toHaveCount(0);

  // The archive's row keeps Extract beside its menu; its long name wraps inside the cell.
  const archive = page.getByTestId('file-row').filter({ hasText: LONG_NAME });
  await expect(archive.getByRole('button', { name: 'Extract' })).toBeVisible();
  await expect(archive.getByRole('button', { name: `Actions for ${LONG_NAME}` })).toBeVisible();

  // A tablet (768 px) still uses the menu; from 1024 px up the actions stay in the row as before, with no menu.
  for (const width of [768, 1024, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    if (width < 1024) {
      await expect(menuButton).toBeVisible();
      await expect(row.getByRole('button', { name: 'Rename', exact: true })).toHaveCount(0);
    } else {
      await expect(row.getByRole('button', { name: 'Rename', exact: true })).toBeVisible();
      await expect(row.getByRole('button', { name: /^Permissions of server\.properties: \d{3}$/ })).toBeVisible();
      await expect(row.getByRole('link', { name: 'Download' })).toBeVisible();
      await expect(menuButton).toBeHidden();
    }
    await expectNoSidewaysScroll(page, `${base}/files at ${width} px`);
    await page.screenshot({ path: test.info().outputPath(`servers-id-files-${width}.png`), fullPage: true });
  }
  for (const [name, path, mark] of [
    // By now (over a minute in, on a loaded machine) the idle server may have gone to sleep, which hides its
    // stats: the join address is on the overview in every state.
    ['servers-id', base, page.getByRole('heading', { name: 'Join address' })],
    ['servers', '/servers', page.getByTestId('server-card')],
  ] as const) {
    await page.goto(path);
    await expect(mark).toBeVisible();
    await expectNoSidewaysScroll(page, path);
    await page.screenshot({ path: test.info().outputPath(`${name}-1280.png`), fullPage: true });
  }

  await page.goto(base);
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Offline', { timeout: 30_000 });
});

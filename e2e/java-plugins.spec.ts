import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { expect, test } from '@playwright/test';
import { uniqueName, verifiedAccount } from './helpers.ts';

// A stand-in for Modrinth's API v2 on the port the product was told (playwright.config.ts): one plugin,
// whose newer version the test publishes half-way.
const jar = (text: string) => Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.from(text)]);
const files: Record<string, Buffer> = { 'homesplus-1.0.jar': jar('1.0'), 'homesplus-1.1.jar': jar('1.1') };
let newest = '1.0';

function version(v: string) {
  const file = files[`homesplus-${v}.jar`]!;
  const url = `http://127.0.0.1:${process.env.E2E_CATALOGUE_PORT}/files/homesplus-${v}.jar`;
  return {
    id: `v${v}`,
    version_number: v,
    version_type: 'release',
    files: [
      {
        url,
        filename: `homesplus-${v}.jar`,
        size: file.length,
        primary: true,
        hashes: { sha512: createHash('sha512').update(file).digest('hex') },
      },
    ],
  };
}

const catalogue = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const json = (body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (url.pathname.startsWith('/files/')) {
    res.writeHead(200);
    return res.end(files[url.pathname.slice(7)]);
  }
  if (url.pathname === '/v2/search')
    return json({
      hits: [
        {
          project_id: 'hp',
          title: 'HomesPlus',
          description: 'Homes with menus',
          author: 'someone',
          downloads: 12345,
          versions: ['1.20.4', '1.21.4'],
        },
      ],
      offset: 0,
      limit: 20,
      total_hits: 1,
    });
  if (url.pathname === '/v2/project/hp') return json({ id: 'hp', title: 'HomesPlus', description: '', downloads: 12345 });
  if (url.pathname === '/v2/project/hp/version') return json(newest === '1.1' ? [version('1.1'), version('1.0')] : [version('1.0')]);
  res.writeHead(404);
  res.end();
});

/** A real zip (a jar is one), written by Python's zipfile. */
function zipOf(entries: Record<string, string>): Buffer {
  return execFileSync('python3', [
    '-c',
    'import zipfile,sys,json,io\nb=io.BytesIO()\nz=zipfile.ZipFile(b,"w")\nfor k,v in json.loads(sys.argv[1]).items(): z.writestr(k,v)\nz.close()\nsys.stdout.buffer.write(b.getvalue())',
    JSON.stringify(entries),
  ]);
}

test.beforeAll(async () => {
  await new Promise<void>((resolve) => catalogue.listen(Number(process.env.E2E_CATALOGUE_PORT), '127.0.0.1', resolve));
});
test.afterAll(async () => {
  catalogue.closeAllConnections();
  await new Promise((resolve) => catalogue.close(resolve));
});

test('a Paper server: search Modrinth, install a plugin, see "update available", update it, turn it off', async ({ page }) => {
  await verifiedAccount(page, 'jplug');
  const name = uniqueName('jp', 8);
  await page.goto('/servers/create');
  await page.getByLabel('Server name').fill(name);
  await page.getByLabel('Software').selectOption('paper');
  await page.getByLabel('Minecraft version').selectOption('1.20.4');
  await page.getByRole('button', { name: 'Create server' }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await page.getByRole('navigation', { name: 'Server' }).getByRole('link', { name: 'Plugins', exact: true }).click();

  await expect(page.getByRole('heading', { name: 'Plugins from Modrinth and Hangar' })).toBeVisible();
  await page.getByLabel('Search Modrinth').fill('homes');
  const entry = page.getByTestId('java-catalogue-entry').filter({ hasText: 'HomesPlus' });
  await expect(entry).toContainText('by someone');
  await expect(entry).toContainText('12,345 downloads · Minecraft 1.20.4–1.21.4');
  await entry.getByRole('button', { name: 'Install HomesPlus' }).click();
  await expect(page.getByText('HomesPlus installed')).toBeVisible();
  await expect(entry).toContainText('Installed');
  const row = page.getByTestId('installed-plugin').filter({ hasText: 'HomesPlus' });
  await expect(row).toContainText('Modrinth · version 1.0');
  await page.screenshot({ path: test.info().outputPath('java-plugins-1280.png'), fullPage: true });

  // The catalogue publishes 1.1: after a reload the row offers it.
  newest = '1.1';
  await page.reload();
  await expect(row.getByTestId('update-available')).toHaveText('Update available: 1.1');
  await row.getByRole('button', { name: 'Update HomesPlus to 1.1' }).click();
  await expect(row).toContainText('Modrinth · version 1.1');
  await expect(row.getByTestId('update-available')).toHaveCount(0);
  const file = await page.request.get(`/v1/server/${new URL(page.url()).pathname.split('/')[2]}/files/list?path=/plugins`);
  const names = ((await file.json()).result as { name: string }[]).map((e) => e.name);
  expect(names).toContain('homesplus-1.1.jar');
  expect(names).not.toContain('homesplus-1.0.jar');

  // Back to 1.0 on purpose: the row's Versions list names each, the installed one marked.
  await row.getByRole('button', { name: 'Versions of HomesPlus' }).click();
  const picker = row.getByLabel('Version of HomesPlus');
  await expect(picker.locator('option', { hasText: '1.1 · installed' })).toBeDisabled();
  await picker.selectOption({ label: '1.0' });
  await row.getByRole('button', { name: 'Install this version' }).click();
  await expect(row).toContainText('Modrinth · version 1.0');
  await expect(row.getByTestId('update-available')).toHaveText('Update available: 1.1');

  await row.getByRole('button', { name: 'Turn off HomesPlus' }).click();
  await expect(row).toContainText('Off');

  // A jar of the owner's own: kept because it holds plugin.yml, named from it.
  await page.getByLabel('Plugin file').setInputFiles({
    name: 'signshop.jar',
    mimeType: 'application/java-archive',
    buffer: zipOf({ 'plugin.yml': 'name: SignShop\nversion: 2.0\nmain: a.Main\n' }),
  });
  const own = page.getByTestId('installed-plugin').filter({ hasText: 'SignShop' });
  await expect(own).toContainText('Your file signshop.jar · version 2.0');
  // A program renamed to .jar is refused in words, and nothing is listed for it.
  await page
    .getByLabel('Plugin file')
    .setInputFiles({ name: 'evil.jar', mimeType: 'application/java-archive', buffer: Buffer.from('MZ not a jar') });
  await expect(page.getByText('evil.jar is not a plugin')).toBeVisible();
  await expect(page.getByTestId('installed-plugin')).toHaveCount(2);
  // A Java server may get players' real addresses from the join proxy (it must expect the PROXY header).
  await page.getByRole('navigation', { name: 'Server' }).getByRole('link', { name: 'Properties', exact: true }).click();
  const realAddresses = page.getByRole('switch', { name: "Send players' real addresses (PROXY protocol v2)" });
  await expect(realAddresses).not.toBeChecked();
  await realAddresses.click();
  await expect(page.getByText("Players' real addresses are sent")).toBeVisible();
  await expect(realAddresses).toBeChecked();
  await page.goBack();
  await page.setViewportSize({ width: 360, height: 800 });
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
  await page.screenshot({ path: test.info().outputPath('java-plugins-360.png'), fullPage: true });
});

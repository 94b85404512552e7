import { expect, test } from '@playwright/test';
import minecraftProtocol from 'minecraft-protocol';
import sharp from 'sharp';
import { createServerThroughForm, uniqueName, verifiedAccount } from './helpers.ts';

type Status = { description: { extra?: { text: string; color?: string; bold?: boolean }[] }; favicon?: string };

test('appearance: the preview follows the MOTD as typed, a photo becomes a 64×64 icon, and a real status ping shows both after the start', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await verifiedAccount(page, 'looks');
  const base = await createServerThroughForm(page, uniqueName('lk-', 8));
  const direct = await page.getByRole('button', { name: /^Direct address: / }).getAttribute('aria-label');
  const port = Number(/:(\d+)\. Copy$/.exec(direct ?? '')?.[1]);
  await page.getByRole('navigation', { name: 'Server' }).getByRole('link', { name: 'Appearance', exact: true }).click();

  const motd = page.getByLabel(/^Two lines/);
  await motd.fill('&aGreen &lbold\n&#ff8800Orange');
  // The preview draws each span in the colour the game would.
  const line1 = page.getByTestId('preview-line-1');
  await expect(line1).toContainText('Green bold');
  await expect(line1.getByText('Green', { exact: true })).toHaveCSS('color', 'rgb(85, 255, 85)');
  await expect(line1.getByText('bold', { exact: true })).toHaveCSS('font-weight', '700');
  await expect(page.getByTestId('preview-line-2').getByText('Orange')).toHaveCSS('color', 'rgb(255, 136, 0)');
  await motd.fill('&zoops');
  await expect(page.getByRole('alert').filter({ hasText: '&z is not a formatting code' })).toBeVisible();
  await motd.fill('&aGreen &lbold\n&#ff8800Orange');
  await page.getByRole('button', { name: 'Save message' }).click();
  await expect(page.getByText('Message of the day saved')).toBeVisible();

  // A 400×300 photo: cut to a square and scaled to 64×64 by the API.
  const photo = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 30, g: 90, b: 200 } } })
    .jpeg()
    .toBuffer();
  await page
    .getByLabel('Upload an icon (a picture, scaled to 64×64)')
    .setInputFiles({ name: 'photo.jpg', mimeType: 'image/jpeg', buffer: photo });
  await expect(page.getByText('Icon saved')).toBeVisible();
  const icon = page.getByTestId('preview-icon');
  await expect(icon).toBeVisible();
  await expect.poll(() => icon.evaluate((img: { naturalWidth: number }) => img.naturalWidth)).toBe(64);
  // A file that is no picture is refused with the reason.
  await page
    .getByLabel('Upload an icon (a picture, scaled to 64×64)')
    .setInputFiles({ name: 'setup.png', mimeType: 'image/png', buffer: Buffer.from('MZ this is a program') });
  await expect(page.getByRole('alert').filter({ hasText: 'This is not a picture' }).first()).toBeVisible();
  // Going back to the default icon deletes the uploaded one: asked first, and Cancel keeps it.
  await page.getByRole('button', { name: 'Use the default icon' }).click();
  const removal = page.getByRole('dialog', { name: 'Use the default icon?' });
  await expect(removal).toContainText('server-icon.png is deleted from the server');
  await removal.getByRole('button', { name: 'Cancel' }).click();
  await expect(removal).toHaveCount(0);
  await expect(icon).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('appearance-1280.png'), fullPage: true });

  // What the Minecraft client's server list gets once the server runs.
  await page.goto(base);
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Online', { timeout: 30_000 });
  const status = (await minecraftProtocol.ping({ host: '127.0.0.1', port, version: '1.21.4', closeTimeout: 5000 })) as Status;
  const parts = status.description.extra ?? [];
  expect(parts.find((p) => p.text === 'Green ')).toMatchObject({ color: 'green' });
  expect(parts.find((p) => p.text === 'bold')).toMatchObject({ color: 'green', bold: true });
  expect(parts.find((p) => p.text === 'Orange')).toMatchObject({ color: '#ff8800' });
  const favicon = Buffer.from((status.favicon ?? '').replace(/^data:image\/png;base64,/, ''), 'base64');
  const decoded = await sharp(favicon).raw().toBuffer({ resolveWithObject: true });
  expect([decoded.info.width, decoded.info.height]).toEqual([64, 64]);
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(page.getByTestId('server-state')).toHaveText('Offline', { timeout: 30_000 });

  // Confirmed, the icon is gone and the preview shows the default one.
  await page.getByRole('navigation', { name: 'Server' }).getByRole('link', { name: 'Appearance', exact: true }).click();
  await page.getByRole('button', { name: 'Use the default icon' }).click();
  await removal.getByRole('button', { name: 'Use the default icon' }).click();
  await expect(removal).toHaveCount(0);
  await expect(page.getByTestId('preview-icon')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Use the default icon' })).toHaveCount(0);
});

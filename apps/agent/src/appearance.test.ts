import { readFileSync } from 'node:fs';
import path from 'node:path';
import { faviconOf, toSectionCodes } from '@spawnpoint/contracts';
import minecraftProtocol from 'minecraft-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePng } from '../../../test-support/png.ts';
import { until } from '../../../test-support/until.ts';
import { installBuiltin, startTestAgent, type TestAgent } from '../test-support/test-agent.ts';

let t: TestAgent;

beforeAll(async () => {
  t = await startTestAgent('appearance');
});
afterAll(async () => {
  await t.close();
});

const stateOf = (id: string) => t.agent.servers.get(id)?.state;

const install = (serverId: string) => installBuiltin(t, serverId, { motd: 'Appearance test' });

/** Writes a file the way the API's icon upload does (PUT …/files/write). */
async function putFile(serverId: string, file: string, bytes: Buffer) {
  const response = await fetch(`${t.base}/v1/servers/${serverId}/files/write?path=${encodeURIComponent(file)}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  expect(((await response.json()) as { status: string }).status).toBe('SUCCESS');
}

async function power(serverId: string, action: 'start' | 'stop', wanted: 'online' | 'offline') {
  expect((await t.call('POST', `/v1/servers/${serverId}/power`, { action })).body.status).toBe('SUCCESS');
  await until(
    () => stateOf(serverId),
    (s) => s === wanted,
  );
}

interface Status {
  description?: unknown;
  favicon?: string;
}
const ping = async (port: number) =>
  (await minecraftProtocol.ping({ host: '127.0.0.1', port, version: '1.21.4', closeTimeout: 5000 })) as Status;

describe('appearance on the built-in runtime (real flying-squid, real status ping)', () => {
  it('answers a status ping with the coloured two-line MOTD and server-icon.png as the favicon', async () => {
    const port = await install('look1');
    const motd = toSectionCodes('&6&lGold Realm\n&#33ccffhex &rand plain');
    const saved = await t.call('PUT', '/v1/servers/look1/properties', { values: { motd } });
    expect(saved.body.result).toMatchObject({ motd });
    // Java's escaping in the file: § as \u00A7, the line break as \n, all on one line.
    const file = readFileSync(path.join(t.dataDir, 'servers', 'look1', 'server.properties'), 'utf8');
    expect(file).toContain(
      'motd=\\u00A76\\u00A7lGold Realm\\n\\u00A7x\\u00A73\\u00A73\\u00A7c\\u00A7c\\u00A7f\\u00A7fhex \\u00A7rand plain\n',
    );
    const icon = fakePng(64, 64);
    await putFile('look1', '/server-icon.png', icon);

    await power('look1', 'start', 'online');
    const status = await ping(port);
    expect(status.favicon).toBe(faviconOf(icon));
    expect(status.description).toEqual({
      text: '',
      extra: [
        { text: 'Gold Realm', color: 'gold', bold: true, italic: false, underlined: false, strikethrough: false, obfuscated: false },
        { text: '\n' },
        { text: 'hex ', color: '#33ccff', bold: false, italic: false, underlined: false, strikethrough: false, obfuscated: false },
        { text: 'and plain', color: 'gray', bold: false, italic: false, underlined: false, strikethrough: false, obfuscated: false },
      ],
    });
    await power('look1', 'stop', 'offline');

    // A file that is no 64×64 PNG (put there with the file manager) is not sent: the client's default icon.
    await putFile('look1', '/server-icon.png', fakePng(128, 128));
    await power('look1', 'start', 'online');
    expect((await ping(port)).favicon).toBeUndefined();
    await power('look1', 'stop', 'offline');
  });
});

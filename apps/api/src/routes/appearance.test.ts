import type { AddressInfo } from 'node:net';
import { faviconOf } from '@spawnpoint/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePng } from '../../../../test-support/png.ts';
import { until } from '../../../../test-support/until.ts';
import { prepareAgent, type AgentProcess } from '../test/agent-process.ts';
import { buildTestApp, ownerWithServer, requester, type Send } from '../test/build-test-app.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let agent: AgentProcess;

beforeAll(async () => {
  agent = await prepareAgent();
  t = await buildTestApp({ AGENTS: JSON.stringify([agent.nodeConfig]) });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  agent.start(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
  await until(
    async () => (await send('GET', '/healthz')).json().result.agents,
    (a: string[]) => a.includes('test-node'),
  );
});
afterAll(async () => {
  await t.cleanup();
  await agent.stop();
});

const send: Send = (...args) => requester(t.app)(...args);

describe('appearance', () => {
  it('saves the MOTD with § codes in server.properties and refuses codes that do not exist', async () => {
    const { cookie, id } = await ownerWithServer(t, 'looks');
    const appearance = `/v1/server/${id}/appearance`;
    expect((await send('GET', appearance, cookie)).json().result).toMatchObject({ icon: null });

    const saved = await send('PUT', appearance, cookie, { motd: '&aWelcome &lhome\n&#ff8800Tom & Jerry' });
    expect(saved.json().result).toEqual({ motd: '§aWelcome §lhome\n§x§f§f§8§8§0§0Tom & Jerry', icon: null });
    const file = (await send('GET', `/v1/server/${id}/files/content?path=/server.properties`, cookie)).json().result.content as string;
    expect(file).toContain('motd=\\u00A7aWelcome \\u00A7lhome\\n\\u00A7x');
    // The Properties page reads the same value.
    expect((await send('GET', `/v1/server/${id}/properties`, cookie)).json().result.motd).toBe(
      '§aWelcome §lhome\n§x§f§f§8§8§0§0Tom & Jerry',
    );

    const bad = (await send('PUT', appearance, cookie, { motd: '&zoops' })).json();
    expect(bad).toMatchObject({ status: 'INVALID_INPUT', fields: { motd: '&z is not a formatting code (0–9, a–f, k–o, r or #rrggbb).' } });
    const long = (await send('PUT', appearance, cookie, { motd: 'x'.repeat(60) })).json();
    expect(long).toMatchObject({
      status: 'INVALID_INPUT',
      fields: { motd: 'Line 1 has 60 characters; at most 59 fit in the server list.' },
    });
  });

  it('takes a 64×64 PNG icon, refuses anything else with the reason, and removes it', async () => {
    const { cookie, id } = await ownerWithServer(t, 'icons');
    const icon = `/v1/server/${id}/appearance/icon`;
    const png = fakePng(64, 64);
    expect((await send('PUT', icon, cookie, { png: png.toString('base64') })).json().result.icon).toBe(faviconOf(png));
    expect((await send('GET', `/v1/server/${id}/appearance`, cookie)).json().result.icon).toBe(faviconOf(png));

    const big = (await send('PUT', icon, cookie, { png: fakePng(128, 64).toString('base64') })).json();
    expect(big).toMatchObject({ status: 'INVALID_INPUT', message: 'The icon must be exactly 64×64 pixels; this one is 128×64.' });
    const exe = (await send('PUT', icon, cookie, { png: Buffer.from('MZ\x90\x00this is a renamed program').toString('base64') })).json();
    expect(exe).toMatchObject({ status: 'INVALID_INPUT', message: 'The icon must be a PNG image.' });
    const huge = (await send('PUT', icon, cookie, { png: Buffer.alloc(70 * 1024).toString('base64') })).json();
    expect(huge.status).toBe('INVALID_INPUT');
    // The refused ones left the saved icon as it was.
    expect((await send('GET', `/v1/server/${id}/appearance`, cookie)).json().result.icon).toBe(faviconOf(png));

    expect((await send('DELETE', icon, cookie)).json().result.icon).toBeNull();
    expect((await send('DELETE', icon, cookie)).json().status).toBe('SUCCESS');
  });
});

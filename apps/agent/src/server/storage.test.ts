import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../../test-support/until.ts';
import { createAgent, type Agent } from '../agent.ts';
import { loadAgentConfig } from '../config.ts';
import { localStorage, s3Storage, type BackupStorage } from './storage.ts';

/** Backup storage against the node's disk and against a real S3-compatible server (s3rver) on loopback. */
let work: string;
let server: S3rver;
let s3Url: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-storage-'));
  mkdirSync(path.join(work, 's3'));
  server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(work, 's3') });
  const { port } = (await server.run()) as AddressInfo;
  const client = new S3Client({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await client.send(new CreateBucketCommand({ Bucket: 'backups' }));
  s3Url = `s3://S3RVER:S3RVER@127.0.0.1:${port}/backups?tls=false`;
});
afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

const read = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

for (const kind of ['local', 's3'] as const) {
  describe(`${kind} storage`, () => {
    const make = (): BackupStorage => (kind === 'local' ? localStorage(path.join(work, 'local')) : s3Storage(s3Url));

    it('stores a stream (multipart-sized), reads it back, and removes it', async () => {
      const storage = make();
      const data = randomBytes(7 * 1024 * 1024);
      await storage.put('backups/srv/one.tar.gz', Readable.from([data.subarray(0, 3_000_000), data.subarray(3_000_000)]));
      expect(await storage.exists('backups/srv/one.tar.gz')).toBe(true);
      const got = await storage.get('backups/srv/one.tar.gz');
      expect(got?.size).toBe(data.length);
      expect((await read(got?.stream as Readable)).equals(data)).toBe(true);
      await storage.removePrefix('backups/srv');
      expect(await storage.get('backups/srv/one.tar.gz')).toBeNull();
    });

    it('never shows a key whose stream failed midway', async () => {
      const storage = make();
      const failing = new Readable({
        read() {
          this.push(randomBytes(1024 * 1024));
          this.destroy(new Error('disk died'));
        },
      });
      await expect(storage.put('backups/srv/broken.tar.gz', failing)).rejects.toThrow();
      expect(await storage.exists('backups/srv/broken.tar.gz')).toBe(false);
    });
  });
}

describe('agent backups to S3', () => {
  let agent: Agent;
  const token = randomBytes(24).toString('hex');
  let base: string;
  beforeAll(async () => {
    agent = await createAgent(
      loadAgentConfig({
        AGENT_TOKEN: token,
        AGENT_PORT: '0',
        DATA_DIR: path.join(work, 'agent'),
        API_URL: 'http://127.0.0.1:9',
        LOG_LEVEL: 'silent',
        S3_URL: s3Url,
      }),
    );
    base = `http://127.0.0.1:${(agent.http.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await agent.close();
  });
  const call = async (method: string, url: string, body?: unknown) =>
    (
      await fetch(`${base}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      })
    ).json() as Promise<{ status: string }>;

  it('backs up into the bucket and restores from it', async () => {
    expect(
      (
        await call('PUT', '/v1/servers/s3srv', {
          serverId: 's3srv',
          software: 'flying-squid',
          version: '1.21.4',
          port: 45999,
          memoryMb: 512,
          diskMb: 64,
          maxPlayers: 5,
          motd: 'S3',
        })
      ).status,
    ).toBe('SUCCESS');
    const root = path.join(work, 'agent/servers/s3srv');
    writeFileSync(path.join(root, 'world.dat'), 'before');
    const hash = createHash('sha256')
      .update(readFileSync(path.join(root, 'world.dat')))
      .digest('hex');
    expect((await call('POST', '/v1/servers/s3srv/backups/b1')).status).toBe('SUCCESS');
    const storage = s3Storage(s3Url);
    await until(
      () => storage.exists('backups/s3srv/b1.tar.gz'),
      (v) => v,
    );
    expect(existsSync(path.join(work, 'agent/storage/backups'))).toBe(false);
    await until(
      () => agent.servers.get('s3srv')?.state,
      (s) => s === 'offline',
    );
    writeFileSync(path.join(root, 'world.dat'), 'after');
    expect((await call('POST', '/v1/servers/s3srv/backups/b1/restore')).status).toBe('SUCCESS');
    expect(
      createHash('sha256')
        .update(readFileSync(path.join(root, 'world.dat')))
        .digest('hex'),
    ).toBe(hash);
    expect((await call('DELETE', '/v1/servers/s3srv/backups/b1')).status).toBe('SUCCESS');
    expect(await storage.exists('backups/s3srv/b1.tar.gz')).toBe(false);
  });
});

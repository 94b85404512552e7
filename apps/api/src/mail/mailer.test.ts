import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQuotedPrintable } from '../test/build-test-app.ts';
import { fileMailer, smtpMailer } from './mailer.ts';
import { verificationMail } from './templates.ts';

const log = pino({ level: 'silent' });

describe('SMTP mailer', () => {
  let server: SMTPServer;
  let port: number;
  const received: { from: string; to: string[]; data: string }[] = [];

  beforeAll(async () => {
    // A real SMTP peer on loopback.
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            data: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('delivers the verification mail over SMTP', async () => {
    const mailer = smtpMailer(`smtp://127.0.0.1:${port}`, 'Spawnpoint <no-reply@spawnpoint.test>', log);
    await mailer.send({ to: 'owner@example.com', ...verificationMail('https://spawnpoint.test', 'tok_abcdefghijklmnop') });
    mailer.close();
    expect(received).toHaveLength(1);
    expect(received[0]?.from).toBe('no-reply@spawnpoint.test');
    expect(received[0]?.to).toEqual(['owner@example.com']);
    const text = decodeQuotedPrintable(received[0]?.data ?? '');
    expect(text).toContain('Subject: Verify your Spawnpoint email address');
    expect(text).toContain('https://spawnpoint.test/?verify_token=tok_abcdefghijklmnop');
  });
});

describe('file mailer', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-mail-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes each mail as an .eml file with text and HTML parts', async () => {
    const mailer = fileMailer(dir, 'Spawnpoint <no-reply@spawnpoint.test>', log);
    await mailer.send({ to: 'a@example.com', ...verificationMail('http://localhost:3000', 'first_token_123456') });
    await mailer.send({ to: 'b@example.com', ...verificationMail('http://localhost:3000', 'second_token_12345') });
    const files = (await readdir(dir)).sort();
    expect(files).toHaveLength(2);
    expect(files.every((f) => f.endsWith('.eml'))).toBe(true);
    const first = decodeQuotedPrintable(await readFile(path.join(dir, files[0] as string), 'utf8'));
    expect(first).toContain('To: a@example.com');
    expect(first).toContain('Content-Type: text/plain');
    expect(first).toContain('Content-Type: text/html');
    expect(first).toContain('http://localhost:3000/?verify_token=first_token_123456');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareApiProcess } from './test/api-process.ts';

// A killed API process loses no acknowledged write (docs/design.md, Database). The API runs as a real process
// (`main.ts`) on its embedded database (PGlite in DATA_DIR, or a PostgreSQL database of its own when the
// suite runs on PostgreSQL), is killed with SIGKILL right after answering, and a new process must still
// have the write.
let api: Awaited<ReturnType<typeof prepareApiProcess>>;

beforeAll(async () => {
  api = await prepareApiProcess();
});
afterAll(async () => {
  await api.cleanup();
});

describe('a killed API process', () => {
  it('keeps every write it acknowledged', async () => {
    await api.start();
    const emails = Array.from({ length: 5 }, (_, i) => `kept-${i}-${Date.now().toString(36)}@example.com`);
    for (const emailAddress of emails) {
      expect((await api.call('POST', '/v1/auth/register', { emailAddress, password: 'long enough password' })).status).toBe('SUCCESS');
    }
    await api.kill();

    await api.start();
    for (const emailAddress of emails) {
      expect((await api.call('POST', '/v1/auth/login', { emailAddress, password: 'long enough password' })).status, emailAddress).toBe(
        'SUCCESS',
      );
    }
  }, 120_000);
});

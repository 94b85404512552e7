import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailTokens, users } from '../db/schema.ts';
import { buildTestApp, cookieFrom, linkIn, mailsTo, uniqueEmail, uniqueIp } from '../test/build-test-app.ts';

type TestApp = Awaited<ReturnType<typeof buildTestApp>>;
let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.cleanup();
});

const PASSWORD = 'correct horse battery';

async function post(url: string, payload: unknown, options: { cookie?: string; ip?: string } = {}) {
  return t.app.inject({
    method: 'POST',
    url,
    payload: payload as Record<string, unknown>,
    headers: options.cookie ? { cookie: options.cookie } : {},
    remoteAddress: options.ip ?? uniqueIp(),
  });
}

async function get(url: string, cookie?: string) {
  return t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {}, remoteAddress: uniqueIp() });
}

async function register(email = uniqueEmail()) {
  const res = await post('/v1/auth/register', { emailAddress: email, password: PASSWORD });
  expect(res.statusCode).toBe(200);
  await t.drain();
  return { email, cookie: cookieFrom(res.headers['set-cookie']), body: res.json() };
}

describe('register', () => {
  it('creates the account, signs it in and mails a verification link', async () => {
    const email = uniqueEmail();
    const res = await post('/v1/auth/register', { emailAddress: `  ${email.toUpperCase()} `, password: PASSWORD });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('SUCCESS');
    expect(body.result).toMatchObject({ emailAddress: email, emailVerified: false, twoFactorEnabled: false });
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/sp_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Path=\/;/);
    expect(setCookie).toMatch(/Max-Age=2592000;/);
    expect(setCookie).not.toMatch(/Secure/);
    await t.drain();
    const mails = mailsTo(t.dataDir, email);
    expect(mails).toHaveLength(1);
    expect(linkIn(mails[0] as string, /http:\/\/localhost:3000\/\?verify_token=[A-Za-z0-9_-]+/)).toBeTruthy();
    const me = await get('/v1/user/me', cookieFrom(res.headers['set-cookie']));
    expect(me.json().result.emailAddress).toBe(email);
  });

  it('stores only a hash of the password', async () => {
    const { email } = await register();
    const [row] = await t.ctx.database.db.select().from(users).where(eq(users.emailAddress, email));
    expect(row?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row?.passwordHash).not.toContain(PASSWORD);
  });

  it('refuses a password from the list of the most common ones, whatever its letter case', async () => {
    for (const password of ['password123', 'Password123', 'qwertyuiop']) {
      const res = await post('/v1/auth/register', { emailAddress: uniqueEmail(), password });
      expect(res.json(), password).toEqual({
        status: 'INVALID_INPUT',
        message: 'This password is one of the most common ones, which are tried first. Choose another.',
        fields: { password: 'This password is one of the most common ones, which are tried first. Choose another.' },
      });
    }
  });

  it('refuses an address that is already registered', async () => {
    const { email } = await register();
    const res = await post('/v1/auth/register', { emailAddress: email, password: PASSWORD });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ status: 'EMAIL_ALREADY_REGISTERED', message: 'This email address is already registered.' });
  });

  it('refuses an address with a display name or a list, whose mail would go to another mailbox', async () => {
    // Stored as written, a mail library delivers `x<victim@…>` to victim@…: one mailbox could verify any
    // number of accounts, and anyone could mail a registered user's inbox again and again.
    const { email } = await register();
    for (const emailAddress of [`another<${email}>`, `another,${email}`]) {
      const res = await post('/v1/auth/register', { emailAddress, password: PASSWORD });
      expect(res.statusCode).toBe(400);
      expect(res.json().fields).toEqual({ emailAddress: 'The email address field must be a valid email' });
    }
    await t.drain();
    expect(mailsTo(t.dataDir, email)).toHaveLength(1);
  });

  it('answers bad fields with INVALID_INPUT and the form messages', async () => {
    const res = await post('/v1/auth/register', { emailAddress: 'not-an-email', password: 'short' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      status: 'INVALID_INPUT',
      message: 'The information you entered is invalid.',
      fields: {
        emailAddress: 'The email address field must be a valid email',
        password: 'The password field must be at least 8 characters',
      },
    });
    const missing = await post('/v1/auth/register', {});
    expect(missing.json().fields).toEqual({
      emailAddress: 'The email address field is required',
      password: 'The password field is required',
    });
  });

  it('limits registrations per address of origin', async () => {
    const ip = uniqueIp();
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await post('/v1/auth/register', { emailAddress: uniqueEmail('burst'), password: PASSWORD }, { ip });
      codes.push(res.statusCode);
    }
    expect(codes.slice(0, 10).every((c) => c === 200)).toBe(true);
    const last = await post('/v1/auth/register', { emailAddress: uniqueEmail('burst'), password: PASSWORD }, { ip });
    expect(last.statusCode).toBe(429);
    expect(last.json().status).toBe('RATE_LIMIT');
    // Another address of origin is unaffected.
    const other = await post('/v1/auth/register', { emailAddress: uniqueEmail('other'), password: PASSWORD });
    expect(other.statusCode).toBe(200);
    await t.drain();
  });
});

describe('email verification', () => {
  it('verifies once with the mailed token; opened again, says the address is already verified', async () => {
    const { email, cookie } = await register();
    const link = linkIn(mailsTo(t.dataDir, email)[0] as string, /verify_token=[A-Za-z0-9_-]+/);
    const token = link.split('=')[1];
    const res = await post('/v1/auth/verify', { token });
    expect(res.json()).toEqual({ status: 'SUCCESS', result: null });
    expect((await get('/v1/user/me', cookie)).json().result.emailVerified).toBe(true);
    // A second click (or a mail client that opened the link first) must not send the user for a new link.
    const again = await post('/v1/auth/verify', { token });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ status: 'INVALID_STATE', message: 'Your email address is already verified.' });
    expect((await get('/v1/user/me', cookie)).json().result.emailVerified).toBe(true);
  });

  it('refuses unknown, malformed and expired tokens', async () => {
    expect((await post('/v1/auth/verify', { token: 'A'.repeat(43) })).json().status).toBe('INVALID_INPUT');
    expect((await post('/v1/auth/verify', { token: '../../etc/passwd' })).json().status).toBe('INVALID_INPUT');
    expect((await post('/v1/auth/verify', {})).json().status).toBe('INVALID_INPUT');
    const { email, cookie } = await register();
    const token = linkIn(mailsTo(t.dataDir, email)[0] as string, /verify_token=[A-Za-z0-9_-]+/).split('=')[1];
    const me = (await get('/v1/user/me', cookie)).json().result;
    await t.ctx.database.db
      .update(emailTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(emailTokens.userId, me.userId));
    expect((await post('/v1/auth/verify', { token })).json().status).toBe('INVALID_INPUT');
    expect((await get('/v1/user/me', cookie)).json().result.emailVerified).toBe(false);
  });

  it('resends the verification mail to a signed-in, unverified account, within limits', async () => {
    const { email, cookie } = await register();
    const ip = uniqueIp();
    for (let i = 0; i < 3; i++) expect((await post('/v1/auth/verify/resend', {}, { cookie, ip })).statusCode).toBe(200);
    expect((await post('/v1/auth/verify/resend', {}, { cookie, ip })).json().status).toBe('RATE_LIMIT');
    await t.drain();
    expect(mailsTo(t.dataDir, email)).toHaveLength(4);
    expect((await post('/v1/auth/verify/resend', {})).json().status).toBe('NOT_AUTHENTICATED');
  });

  it('refuses to resend for a verified account', async () => {
    const { email, cookie } = await register();
    const token = linkIn(mailsTo(t.dataDir, email)[0] as string, /verify_token=[A-Za-z0-9_-]+/).split('=')[1];
    await post('/v1/auth/verify', { token });
    const res = await post('/v1/auth/verify/resend', {}, { cookie });
    expect(res.statusCode).toBe(409);
    expect(res.json().status).toBe('INVALID_STATE');
  });
});

describe('login and logout', () => {
  it('signs in with the right password and rotates the session', async () => {
    const { email, cookie: first } = await register();
    const res = await post('/v1/auth/login', { emailAddress: email, password: PASSWORD }, { cookie: first });
    expect(res.statusCode).toBe(200);
    expect(res.json().result.emailAddress).toBe(email);
    const second = cookieFrom(res.headers['set-cookie']);
    expect(second).not.toBe(first);
    expect((await get('/v1/user/me', first)).statusCode).toBe(401);
    expect((await get('/v1/user/me', second)).statusCode).toBe(200);
  });

  it('answers a wrong password and an unknown address identically', async () => {
    const { email } = await register();
    const wrong = await post('/v1/auth/login', { emailAddress: email, password: 'not the password' });
    const unknown = await post('/v1/auth/login', { emailAddress: uniqueEmail('ghost'), password: 'not the password' });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json()).toEqual({ status: 'INVALID_CREDENTIALS', message: 'The email address and password combination does not match.' });
  });

  it('throttles guessing per account and address without locking the owner out', async () => {
    const { email } = await register();
    const attacker = uniqueIp();
    let last = 0;
    for (let i = 0; i < 11; i++)
      last = (await post('/v1/auth/login', { emailAddress: email, password: `guess-${i}-x` }, { ip: attacker })).statusCode;
    expect(last).toBe(429);
    const owner = await post('/v1/auth/login', { emailAddress: email, password: PASSWORD });
    expect(owner.statusCode).toBe(200);
  });

  it('refuses a locked account after checking the password, and every call of its sessions', async () => {
    const { email, cookie } = await register();
    await t.ctx.database.db.update(users).set({ lockedAt: new Date() }).where(eq(users.emailAddress, email));
    const me = (await get('/v1/user/me', cookie)).json();
    t.ctx.sessions.forgetUser(me.result?.userId ?? '');
    const wrong = await post('/v1/auth/login', { emailAddress: email, password: 'wrong password' });
    expect(wrong.json().status).toBe('INVALID_CREDENTIALS');
    const right = await post('/v1/auth/login', { emailAddress: email, password: PASSWORD });
    expect(right.statusCode).toBe(403);
    expect(right.json()).toEqual({ status: 'ACCOUNT_LOCKED', message: 'Your account is locked. Please contact support.' });
  });

  it('signs out and forgets the session', async () => {
    const { cookie } = await register();
    const res = await post('/v1/auth/logout', {}, { cookie });
    expect(res.json()).toEqual({ status: 'SUCCESS', result: null });
    // Gone from the browser too: empty, expired, with the attributes it was set with.
    expect(String(res.headers['set-cookie'])).toBe(
      'sp_session=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax',
    );
    const me = await get('/v1/user/me', cookie);
    expect(me.statusCode).toBe(401);
    expect(me.json()).toEqual({ status: 'NOT_AUTHENTICATED', message: 'You need to sign in to continue.' });
    // Signing out twice is harmless.
    expect((await post('/v1/auth/logout', {}, { cookie })).statusCode).toBe(200);
  });
});

describe('password recovery', () => {
  it('mails a single-use reset link that changes the password and ends every session', async () => {
    const { email, cookie } = await register();
    const res = await post('/v1/auth/password-recovery', { emailAddress: email });
    expect(res.json()).toEqual({ status: 'SUCCESS', result: null });
    await t.drain();
    const mail = mailsTo(t.dataDir, email).find((m) => m.includes('Reset your Spawnpoint password'));
    expect(mail).toBeDefined();
    const token = linkIn(mail as string, /\/password-recovery\?token=[A-Za-z0-9_-]+/).split('=')[1];
    const reset = await post('/v1/auth/password-reset', { token, password: 'a brand new password' });
    expect(reset.json()).toEqual({ status: 'SUCCESS', result: null });
    expect((await get('/v1/user/me', cookie)).statusCode).toBe(401);
    expect((await post('/v1/auth/login', { emailAddress: email, password: PASSWORD })).json().status).toBe('INVALID_CREDENTIALS');
    expect((await post('/v1/auth/login', { emailAddress: email, password: 'a brand new password' })).statusCode).toBe(200);
    const replay = await post('/v1/auth/password-reset', { token, password: 'yet another password' });
    expect(replay.json().status).toBe('INVALID_INPUT');
  });

  it('answers an unknown address exactly like a known one and sends nothing', async () => {
    const ghost = uniqueEmail('ghost');
    const res = await post('/v1/auth/password-recovery', { emailAddress: ghost });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'SUCCESS', result: null });
    await t.drain();
    expect(mailsTo(t.dataDir, ghost)).toHaveLength(0);
  });

  it('refuses a verification token as a reset token, and a short new password', async () => {
    const { email } = await register();
    const verifyToken = linkIn(mailsTo(t.dataDir, email)[0] as string, /verify_token=[A-Za-z0-9_-]+/).split('=')[1];
    expect((await post('/v1/auth/password-reset', { token: verifyToken, password: 'long enough password' })).json().status).toBe(
      'INVALID_INPUT',
    );
    const short = await post('/v1/auth/password-reset', { token: verifyToken, password: 'short' });
    expect(short.json().fields).toEqual({ password: 'The password field must be at least 8 characters' });
  });

  it('limits recovery mails per account', async () => {
    const { email } = await register();
    const codes: string[] = [];
    for (let i = 0; i < 4; i++) codes.push((await post('/v1/auth/password-recovery', { emailAddress: email })).json().status);
    expect(codes).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'RATE_LIMIT']);
    await t.drain();
  });
});

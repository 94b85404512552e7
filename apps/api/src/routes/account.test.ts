import { eq } from 'drizzle-orm';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twoFactor } from '../db/schema.ts';
import { buildTestApp, cookieFrom, linkIn, mailsTo, uniqueEmail, uniqueIp } from '../test/build-test-app.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.cleanup();
});

const PASSWORD = 'long enough password';
const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

function send(method: 'GET' | 'POST' | 'DELETE', url: string, cookie?: string, payload?: unknown, ip = uniqueIp()) {
  return t.app.inject({
    method,
    url,
    headers: { ...(cookie ? { cookie } : {}), 'user-agent': ua },
    ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    remoteAddress: ip,
  });
}

async function account() {
  const email = uniqueEmail('sec');
  const res = await send('POST', '/v1/auth/register', undefined, { emailAddress: email, password: PASSWORD });
  return { email, cookie: cookieFrom(res.headers['set-cookie']), userId: res.json().result.userId as string };
}

const totpFor = (secret: string) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
const codeAt = (secret: string, offsetSteps: number) => totpFor(secret).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

async function withTwoFactor() {
  const user = await account();
  const setup = (await send('GET', '/v1/user/twofactor/enable', user.cookie)).json().result;
  const enabled = await send('POST', '/v1/user/twofactor/enable', user.cookie, { token: codeAt(setup.secret, 0) });
  expect(enabled.statusCode).toBe(200);
  return { ...user, secret: setup.secret as string, recoveryCodes: enabled.json().result.recoveryCodes as string[] };
}

describe('two-factor setup', () => {
  it('gives a QR image and the base32 secret, stored encrypted', async () => {
    const user = await account();
    const res = await send('GET', '/v1/user/twofactor/enable', user.cookie);
    const { qr, secret } = res.json().result;
    expect(qr).toMatch(/^data:image\/png;base64,/);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const [row] = await t.ctx.database.db.select().from(twoFactor).where(eq(twoFactor.userId, user.userId));
    expect(row?.secretEncrypted).not.toContain(secret);
    expect(row?.enabledAt).toBeNull();
  });

  it('turns on with a right code, returns ten recovery codes, and shows in userData', async () => {
    const user = await withTwoFactor();
    expect(user.recoveryCodes).toHaveLength(10);
    for (const code of user.recoveryCodes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect((await send('GET', '/v1/user/me', user.cookie)).json().result.twoFactorEnabled).toBe(true);
  });

  it('refuses a wrong code with INVALID_TWOFACTOR and stays off', async () => {
    const user = await account();
    const { secret } = (await send('GET', '/v1/user/twofactor/enable', user.cookie)).json().result;
    const wrong = String((Number(codeAt(secret, 0)) + 1) % 1_000_000).padStart(6, '0');
    const res = await send('POST', '/v1/user/twofactor/enable', user.cookie, { token: wrong });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ status: 'INVALID_TWOFACTOR', message: 'The two-factor code is incorrect.' });
    expect((await send('GET', '/v1/user/me', user.cookie)).json().result.twoFactorEnabled).toBe(false);
  });
});

describe('signing in with two-factor', () => {
  it('checks the password first: a wrong password looks the same with or without two-factor', async () => {
    const plain = await account();
    const guarded = await withTwoFactor();
    const a = await send('POST', '/v1/auth/login', undefined, { emailAddress: plain.email, password: 'wrong password' });
    const b = await send('POST', '/v1/auth/login', undefined, { emailAddress: guarded.email, password: 'wrong password' });
    expect(a.json()).toEqual(b.json());
    expect(b.json().status).toBe('INVALID_CREDENTIALS');
  });

  it('asks for the code after the right password, then signs in with it', async () => {
    const user = await withTwoFactor();
    const ask = await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: PASSWORD });
    expect(ask.statusCode).toBe(401);
    expect(ask.json().status).toBe('INVALID_TWOFACTOR');
    expect(ask.headers['set-cookie']).toBeUndefined();
    const ok = await send('POST', '/v1/auth/login', undefined, {
      emailAddress: user.email,
      password: PASSWORD,
      twoFactorToken: codeAt(user.secret, 1),
    });
    expect(ok.statusCode).toBe(200);
  });

  it('accepts a code one step old, refuses two steps old, and never the same step twice', async () => {
    const user = await withTwoFactor();
    // The setup used the current step, so the previous step is already spent.
    const prev = await send('POST', '/v1/auth/login', undefined, {
      emailAddress: user.email,
      password: PASSWORD,
      twoFactorToken: codeAt(user.secret, -1),
    });
    expect(prev.json().status).toBe('INVALID_TWOFACTOR');
    const old = await send('POST', '/v1/auth/login', undefined, {
      emailAddress: user.email,
      password: PASSWORD,
      twoFactorToken: codeAt(user.secret, -2),
    });
    expect(old.json().status).toBe('INVALID_TWOFACTOR');
    const next = codeAt(user.secret, 1);
    expect(
      (await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: PASSWORD, twoFactorToken: next })).statusCode,
    ).toBe(200);
    const replay = await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: PASSWORD, twoFactorToken: next });
    expect(replay.json().status).toBe('INVALID_TWOFACTOR');
  });

  it('accepts each recovery code once', async () => {
    const user = await withTwoFactor();
    const code = user.recoveryCodes[3] as string;
    expect(
      (await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: PASSWORD, twoFactorToken: code })).statusCode,
    ).toBe(200);
    expect(
      (await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: PASSWORD, twoFactorToken: code })).json()
        .status,
    ).toBe('INVALID_TWOFACTOR');
    expect(
      (
        await send('POST', '/v1/auth/login', undefined, {
          emailAddress: user.email,
          password: PASSWORD,
          twoFactorToken: code.toUpperCase(),
        })
      ).json().status,
    ).toBe('INVALID_TWOFACTOR');
  });

  it('throttles code guessing per account, across addresses', async () => {
    const user = await withTwoFactor();
    const statuses: string[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await send('POST', '/v1/auth/login', undefined, {
        emailAddress: user.email,
        password: PASSWORD,
        twoFactorToken: String(100000 + i),
      });
      statuses.push(res.json().status);
    }
    // Ten checks per account per 5 minutes; turning two-factor on used the first.
    expect(statuses.slice(0, 9).every((s) => s === 'INVALID_TWOFACTOR')).toBe(true);
    expect(statuses.slice(9)).toEqual(['RATE_LIMIT', 'RATE_LIMIT']);
    // Even the right code waits out the window: guessing cannot continue from new addresses.
    const right = await send('POST', '/v1/auth/login', undefined, {
      emailAddress: user.email,
      password: PASSWORD,
      twoFactorToken: codeAt(user.secret, 1),
    });
    expect(right.json().status).toBe('RATE_LIMIT');
  });
});

describe('turning two-factor off and recovery codes', () => {
  it('turns off with a code, after which sign-in needs only the password', async () => {
    const user = await withTwoFactor();
    expect((await send('POST', '/v1/user/twofactor/disable', user.cookie, { token: '000000' })).json().status).toBe('INVALID_TWOFACTOR');
    const res = await send('POST', '/v1/user/twofactor/disable', user.cookie, { token: codeAt(user.secret, 1) });
    expect(res.json()).toEqual({ status: 'SUCCESS', result: null });
    expect((await send('GET', '/v1/user/me', user.cookie)).json().result.twoFactorEnabled).toBe(false);
    expect((await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: PASSWORD })).statusCode).toBe(200);
  });

  it('new recovery codes need two-factor on (TWOFACTOR_REQUIRED) and replace the old ones', async () => {
    const plain = await account();
    const refused = await send('POST', '/v1/user/twofactor/recovery-codes', plain.cookie, { token: '123456' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ status: 'TWOFACTOR_REQUIRED', message: 'Please enable two-factor authentication first.' });
    const user = await withTwoFactor();
    const fresh = (await send('POST', '/v1/user/twofactor/recovery-codes', user.cookie, { token: codeAt(user.secret, 1) })).json().result
      .recoveryCodes;
    expect(fresh).toHaveLength(10);
    const oldCode = user.recoveryCodes[0] as string;
    expect(
      (await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: PASSWORD, twoFactorToken: oldCode })).json()
        .status,
    ).toBe('INVALID_TWOFACTOR');
  });
});

describe('sessions', () => {
  it('lists sessions with device and address, and revokes one or all others', async () => {
    const user = await account();
    const second = cookieFrom(
      (await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: PASSWORD }, '10.9.9.9')).headers['set-cookie'],
    );
    const third = cookieFrom(
      (await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: PASSWORD })).headers['set-cookie'],
    );
    const list = (await send('GET', '/v1/user/sessions', second)).json().result;
    expect(list).toHaveLength(3);
    expect(list.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    expect(list.some((s: { ip: string }) => s.ip === '10.9.9.9')).toBe(true);
    expect(list[0].device).toBe('Chrome on Linux');

    const firstId = list.find((s: { ip: string; current: boolean }) => !s.current && s.ip !== '10.9.9.9').sessionId;
    expect((await send('DELETE', `/v1/user/sessions/${firstId}`, second)).json().status).toBe('SUCCESS');
    expect((await send('GET', '/v1/user/sessions', second)).json().result).toHaveLength(2);

    expect((await send('POST', '/v1/user/sessions/revoke-others', second, {})).json().status).toBe('SUCCESS');
    expect((await send('GET', '/v1/user/me', second)).statusCode).toBe(200);
    expect((await send('GET', '/v1/user/me', third)).statusCode).toBe(401);
    expect((await send('GET', '/v1/user/me', user.cookie)).statusCode).toBe(401);
  });

  it("cannot revoke another account's session", async () => {
    const a = await account();
    const b = await account();
    const bSession = (await send('GET', '/v1/user/sessions', b.cookie)).json().result[0].sessionId;
    expect((await send('DELETE', `/v1/user/sessions/${bSession}`, a.cookie)).json().status).toBe('NOT_FOUND');
    expect((await send('GET', '/v1/user/me', b.cookie)).statusCode).toBe(200);
  });
});

describe('password and email', () => {
  it('changes the password with the current one, optionally ending other sessions', async () => {
    const user = await account();
    const other = cookieFrom(
      (await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: PASSWORD })).headers['set-cookie'],
    );
    const wrong = await send('POST', '/v1/user/password', user.cookie, { currentPassword: 'nope nope', newPassword: 'brand new password' });
    expect(wrong.json().status).toBe('INVALID_CREDENTIALS');
    const res = await send('POST', '/v1/user/password', user.cookie, {
      currentPassword: PASSWORD,
      newPassword: 'brand new password',
      endOtherSessions: true,
    });
    expect(res.json().status).toBe('SUCCESS');
    expect((await send('GET', '/v1/user/me', other)).statusCode).toBe(401);
    expect((await send('GET', '/v1/user/me', user.cookie)).statusCode).toBe(200);
    expect((await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: 'brand new password' })).statusCode).toBe(
      200,
    );
  });

  it('refuses a new password equal to the current one, on the new password field', async () => {
    const user = await account();
    const res = await send('POST', '/v1/user/password', user.cookie, { currentPassword: PASSWORD, newPassword: PASSWORD });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      status: 'INVALID_INPUT',
      message: 'The information you entered is invalid.',
      fields: { newPassword: 'The new password must be different from your current password' },
    });
    // Nothing changed: no "password changed" in the activity log.
    const activity = (await send('GET', '/v1/user/activity', user.cookie)).json().result as { type: string }[];
    expect(activity.map((e) => e.type)).not.toContain('password_changed');
  });

  it('changes the email through a link sent to the new address', async () => {
    const user = await account();
    const newEmail = uniqueEmail('moved');
    expect((await send('POST', '/v1/user/email', user.cookie, { newEmailAddress: newEmail, password: PASSWORD })).json().status).toBe(
      'SUCCESS',
    );
    await t.drain();
    const token = linkIn(mailsTo(t.dataDir, newEmail)[0] as string, /email_token=[A-Za-z0-9_-]+/).split('=')[1];
    expect((await send('POST', '/v1/user/email/confirm', undefined, { token })).json().status).toBe('SUCCESS');
    expect((await send('GET', '/v1/user/me', user.cookie)).json().result).toMatchObject({ emailAddress: newEmail, emailVerified: true });
    expect((await send('POST', '/v1/user/email/confirm', undefined, { token })).json().status).toBe('INVALID_INPUT');
    // The address the account left is told, so a change its owner did not make is noticed.
    await t.drain();
    const told = mailsTo(t.dataDir, user.email).find((m) => m.includes('Your Spawnpoint email address was changed'));
    expect(told).toContain(newEmail);
  });

  it('a pending email change and other reset links stop working once the password is reset or changed', async () => {
    // Someone with the old password asks to move the address to their mailbox; the owner resets the password.
    const user = await account();
    const thief = uniqueEmail('thief');
    await send('POST', '/v1/user/email', user.cookie, { newEmailAddress: thief, password: PASSWORD });
    await send('POST', '/v1/auth/password-recovery', undefined, { emailAddress: user.email });
    await send('POST', '/v1/auth/password-recovery', undefined, { emailAddress: user.email });
    await t.drain();
    const stolen = linkIn(mailsTo(t.dataDir, thief)[0] as string, /email_token=[A-Za-z0-9_-]+/).split('=')[1];
    const resets = mailsTo(t.dataDir, user.email)
      .filter((m) => m.includes('Reset your Spawnpoint password'))
      .map((m) => linkIn(m, /\/password-recovery\?token=[A-Za-z0-9_-]+/).split('=')[1]);
    expect(resets).toHaveLength(2);
    expect(
      (await send('POST', '/v1/auth/password-reset', undefined, { token: resets[0], password: 'the owner again' })).json().status,
    ).toBe('SUCCESS');
    // The thief's confirmation link and the other reset link are dead.
    expect((await send('POST', '/v1/user/email/confirm', undefined, { token: stolen })).json().status).toBe('INVALID_INPUT');
    expect((await send('POST', '/v1/auth/password-reset', undefined, { token: resets[1], password: 'the thief wins' })).json().status).toBe(
      'INVALID_INPUT',
    );
    const owner = cookieFrom(
      (await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: 'the owner again' })).headers['set-cookie'],
    );
    expect((await send('GET', '/v1/user/me', owner)).json().result.emailAddress).toBe(user.email);

    // The same after a password change from the account page.
    const other = uniqueEmail('thief2');
    await send('POST', '/v1/user/email', owner, { newEmailAddress: other, password: 'the owner again' });
    await t.drain();
    const second = linkIn(mailsTo(t.dataDir, other)[0] as string, /email_token=[A-Za-z0-9_-]+/).split('=')[1];
    expect(
      (await send('POST', '/v1/user/password', owner, { currentPassword: 'the owner again', newPassword: 'and once more' })).json().status,
    ).toBe('SUCCESS');
    expect((await send('POST', '/v1/user/email/confirm', undefined, { token: second })).json().status).toBe('INVALID_INPUT');
  });

  it('says so when the new address was registered by someone else before the link was opened', async () => {
    const user = await account();
    const newEmail = uniqueEmail('contested');
    await send('POST', '/v1/user/email', user.cookie, { newEmailAddress: newEmail, password: PASSWORD });
    await t.drain();
    const token = linkIn(mailsTo(t.dataDir, newEmail)[0] as string, /email_token=[A-Za-z0-9_-]+/).split('=')[1];
    // Someone registers that address in between.
    await send('POST', '/v1/auth/register', undefined, { emailAddress: newEmail, password: PASSWORD });
    const res = await send('POST', '/v1/user/email/confirm', undefined, { token });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      status: 'EMAIL_ALREADY_REGISTERED',
      message: 'This email address was registered by another account since you asked to change to it.',
    });
    expect((await send('GET', '/v1/user/me', user.cookie)).json().result.emailAddress).toBe(user.email);
  });

  it('answers the same when the new address is taken, and tells only its owner', async () => {
    const user = await account();
    const taken = await account();
    const res = await send('POST', '/v1/user/email', user.cookie, { newEmailAddress: taken.email, password: PASSWORD });
    expect(res.json()).toEqual({ status: 'SUCCESS', result: null });
    await t.drain();
    const mail = mailsTo(t.dataDir, taken.email).find((m) => m.includes('Email change on Spawnpoint'));
    expect(mail).toBeDefined();
    expect(mail).not.toContain('email_token=');
    expect((await send('GET', '/v1/user/me', user.cookie)).json().result.emailAddress).toBe(user.email);
  });

  it('limits email changes per account', async () => {
    const user = await account();
    const statuses: string[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await send('POST', '/v1/user/email', user.cookie, { newEmailAddress: uniqueEmail('x'), password: PASSWORD })).json().status,
      );
    expect(statuses).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'RATE_LIMIT']);
    await t.drain();
  });
});

describe('account deletion, lock and activity', () => {
  it('deletes the account with the password', async () => {
    const user = await account();
    expect((await send('POST', '/v1/user/delete', user.cookie, { password: 'wrong one' })).json().status).toBe('INVALID_CREDENTIALS');
    expect((await send('POST', '/v1/user/delete', user.cookie, { password: PASSWORD })).json().status).toBe('SUCCESS');
    expect((await send('GET', '/v1/user/me', user.cookie)).statusCode).toBe(401);
    expect((await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: PASSWORD })).json().status).toBe(
      'INVALID_CREDENTIALS',
    );
  });

  it('locks an account through the operator endpoint: sessions end, sign-in is refused', async () => {
    const user = await account();
    const denied = await t.app.inject({
      method: 'POST',
      url: '/v1/operator/accounts/lock',
      headers: { authorization: 'Bearer nope' },
      payload: { emailAddress: user.email, locked: true },
      remoteAddress: uniqueIp(),
    });
    expect(denied.json().status).toBe('NO_PERMISSION');
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/operator/accounts/lock',
      headers: { authorization: `Bearer ${t.config.operatorToken}` },
      payload: { emailAddress: user.email, locked: true },
      remoteAddress: uniqueIp(),
    });
    expect(res.json()).toEqual({ status: 'SUCCESS', result: { sessionsEnded: 1 } });
    expect((await send('GET', '/v1/user/me', user.cookie)).statusCode).toBe(401);
    expect((await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: PASSWORD })).json().status).toBe(
      'ACCOUNT_LOCKED',
    );
  });

  it('records account events', async () => {
    const user = await account();
    await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: 'wrong password' });
    await send('POST', '/v1/auth/login', undefined, { emailAddress: user.email, password: PASSWORD });
    await send('POST', '/v1/user/password', user.cookie, { currentPassword: PASSWORD, newPassword: 'brand new password' });
    const types = (await send('GET', '/v1/user/activity', user.cookie)).json().result.map((e: { type: string }) => e.type);
    expect(types).toEqual(['password_changed', 'sign_in', 'sign_in_failed']);
  });
});

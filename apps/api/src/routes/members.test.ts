import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import {
  backupSlotsFullMessage,
  endpoints,
  errorMessage,
  FREE_BACKUP_LIMIT,
  fillPath,
  memberMessages,
  rolePermissions,
  serverRoles,
  socketEventPermissions,
  type Endpoint,
  type ServerRole,
} from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { until } from '../../../../test-support/until.ts';
import { sha256 } from '../auth/tokens.ts';
import { backups, serverInvitations, serverMembers, serverSchedules, servers, users } from '../db/schema.ts';
import { buildTestApp, cookieFrom, linkIn, mailsTo, requester, uniqueEmail, type Send } from '../test/build-test-app.ts';

type TestApp = Awaited<ReturnType<typeof buildTestApp>>;
let t: TestApp;
let send: Send;
let base: string;
const sockets: Socket[] = [];
const PASSWORD = 'long enough password';

beforeAll(async () => {
  t = await buildTestApp();
  send = requester(t.app);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await t.cleanup();
});

interface Account {
  userId: string;
  emailAddress: string;
  cookie: string;
}

async function register(emailAddress = uniqueEmail('member')): Promise<Account> {
  const res = await send('POST', '/v1/auth/register', undefined, { emailAddress, password: PASSWORD });
  return { userId: res.json().result.userId, emailAddress, cookie: cookieFrom(res.headers['set-cookie']) };
}

async function account(): Promise<Account> {
  const a = await register();
  await t.ctx.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, a.userId));
  t.ctx.sessions.forgetUser(a.userId);
  return a;
}

let serverCount = 0;
/**
 * A server row on a node that never connects: every permission check runs as for any server, and what
 * a handler would ask of the node answers NODE_UNAVAILABLE, so the matrix can call every endpoint safely.
 */
async function serverOf(owner: Account): Promise<string> {
  const id = randomBytes(9).toString('base64url');
  serverCount += 1;
  await t.ctx.database.db.insert(servers).values({
    id,
    ownerId: owner.userId,
    name: `mtest${serverCount}${id
      .slice(0, 4)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}`,
    software: 'flying-squid',
    version: '1.21.4',
    nodeId: 'ghost-node',
    port: 30000 + serverCount,
    memoryMb: 1024,
    maxPlayers: 10,
  });
  t.ctx.game.hub.place({ serverId: id, ownerId: owner.userId, nodeId: 'ghost-node' });
  return id;
}

async function addMember(serverId: string, member: Account, role: Exclude<ServerRole, 'owner'>): Promise<void> {
  await t.ctx.database.db.insert(serverMembers).values({ serverId, userId: member.userId, role });
}

async function invite(serverId: string, by: Account, emailAddress: string, role = 'moderator') {
  return send('POST', `/v1/server/${serverId}/invitations`, by.cookie, { emailAddress, role });
}

/** The token of the newest invitation mail to an address (its verification mail may be written later). */
function tokenMailedTo(emailAddress: string): string {
  const mail = mailsTo(t.dataDir, emailAddress)
    .filter((text) => text.includes('invite_token='))
    .at(-1);
  if (!mail) throw new Error(`no mail to ${emailAddress}`);
  return linkIn(mail, /invite_token=[A-Za-z0-9_-]+/).slice('invite_token='.length);
}

const accept = (who: Account, token: string) => send('POST', '/v1/server/invite', who.cookie, { token });

describe('the permission matrix, generated from the endpoint table', () => {
  const serverEndpoints = Object.entries(endpoints as Record<string, Endpoint>).filter(([, e]) => e.path.includes(':serverId'));

  it('names a permission for every endpoint that names a server', () => {
    expect(serverEndpoints.length).toBeGreaterThan(30);
    const without = serverEndpoints.filter(([, e]) => !e.permission || e.access !== 'session').map(([name]) => name);
    expect(without).toEqual([]);
  });

  let owner: Account;
  let serverId: string;
  const byRole = new Map<ServerRole | 'outsider', Account>();
  beforeAll(async () => {
    owner = await account();
    serverId = await serverOf(owner);
    byRole.set('owner', owner);
    for (const role of ['viewer', 'moderator', 'administrator'] as const) {
      const member = await account();
      await addMember(serverId, member, role);
      byRole.set(role, member);
    }
    byRole.set('outsider', await account());
  });

  for (const role of [...serverRoles, 'outsider'] as const) {
    it(`answers ${role} on every server endpoint as the role's keys say`, async () => {
      const who = byRole.get(role) as Account;
      const authorize = vi.spyOn(t.ctx.game.directory, 'authorizeAccess');
      try {
        for (const [name, endpoint] of serverEndpoints) {
          authorize.mockClear();
          const url = fillPath(endpoint.path, {
            serverId,
            backupId: 'nobackup',
            invitationId: 'noinvite',
            userId: 'nouser',
            scheduleId: 'noschedule',
          });
          const res = await send(endpoint.method, url, who.cookie, endpoint.body ? {} : undefined);
          const body = res.json() as { status: string; message?: string };
          // Leaving works for every member: they are put back for the endpoints after it.
          if (name === 'memberLeave' && body.status === 'SUCCESS' && role !== 'owner' && role !== 'outsider') {
            await addMember(serverId, who, role);
            t.ctx.game.directory.invalidate(who.userId);
          }
          const key = endpoint.permission as NonNullable<Endpoint['permission']>;
          // The one check ran, with the entry's key.
          expect(
            authorize.mock.calls.map((c) => c[2]),
            name,
          ).toEqual([key]);
          if (role === 'outsider') {
            expect([res.statusCode, body.status], name).toEqual([404, 'NOT_FOUND']);
          } else if (rolePermissions[role].includes(key)) {
            await expect(authorize.mock.results[0]?.value, name).resolves.toBeDefined();
            expect(body.status, name).not.toBe('NO_PERMISSION');
          } else {
            expect([res.statusCode, body.status, body.message], name).toEqual([403, 'NO_PERMISSION', errorMessage('NO_PERMISSION')]);
          }
        }
      } finally {
        authorize.mockRestore();
      }
    });
  }

  it('checks the socket events with the same keys', async () => {
    for (const role of [...serverRoles, 'outsider'] as const) {
      const socket = await authedSocket(byRole.get(role) as Account);
      for (const [event, key] of Object.entries(socketEventPermissions)) {
        const answer = nextError(socket, serverId);
        if (event === 'server:subscribe') socket.emit('server:subscribe', { serverId });
        else socket.emit('server:command', { serverId, command: 'say hi' });
        if (role === 'outsider') expect((await answer).status, `${role} ${event}`).toBe('NOT_FOUND');
        else if (!rolePermissions[role].includes(key))
          expect(await answer, `${role} ${event}`).toEqual({ serverId, status: 'NO_PERMISSION', message: errorMessage('NO_PERMISSION') });
        else if (event === 'server:command') expect((await answer).status, `${role} ${event}`).toBe('INVALID_STATE');
        else
          await until(
            () => t.ctx.game.hub.subscriberCount(serverId),
            (n) => n > 0,
          );
      }
      socket.disconnect();
    }
  });
});

async function authedSocket(who: Account): Promise<Socket> {
  const token = (await send('GET', '/v1/user/websocket', who.cookie)).json().result.token as string;
  const socket = connect(base, { transports: ['websocket'], reconnection: false });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const ok = new Promise<void>((resolve) => socket.once('auth:success', () => resolve()));
  socket.emit('auth', { token });
  await ok;
  return socket;
}

function nextError(socket: Socket, serverId: string): Promise<{ serverId: string; status: string; message: string }> {
  return new Promise((resolve) => {
    const listener = (payload: { serverId: string; status: string; message: string }) => {
      if (payload.serverId !== serverId) return;
      socket.off('server:error', listener);
      resolve(payload);
    };
    socket.on('server:error', listener);
  });
}

describe('live state for members', () => {
  it("pushes a shared server's state to its members' sockets (their server list), and stops once they are removed", async () => {
    const owner = await account();
    const member = await account();
    const serverId = await serverOf(owner);
    await addMember(serverId, member, 'viewer');
    t.ctx.game.directory.invalidate(member.userId);
    const socket = await authedSocket(member);
    const states: string[] = [];
    socket.on('server:state', (payload: { serverId: string; state: string }) => {
      if (payload.serverId === serverId) states.push(payload.state);
    });
    // Not subscribed to the console: the server list hears of it all the same.
    t.ctx.game.hub.setState(serverId, 'starting');
    await until(
      () => states,
      (seen) => seen.includes('starting'),
    );

    expect((await send('DELETE', `/v1/server/${serverId}/members/${member.userId}`, owner.cookie)).json().status).toBe('SUCCESS');
    t.ctx.game.hub.setState(serverId, 'online');
    // A request answered on the same socket after the change: anything sent to it before has arrived.
    const refused = new Promise<void>((resolve) =>
      socket.on('server:error', (payload: { serverId: string; status: string }) => {
        if (payload.serverId === serverId && payload.status === 'NOT_FOUND') resolve();
      }),
    );
    socket.emit('server:subscribe', { serverId });
    await refused;
    expect(states).toEqual(['starting']);
  });
});

describe('invitations', () => {
  it('an account that exists accepts, and sees the server with its role and only its keys', async () => {
    const owner = await account();
    const friend = await account();
    const serverId = await serverOf(owner);
    const res = await invite(serverId, owner, friend.emailAddress.toUpperCase());
    expect(res.json()).toMatchObject({ status: 'SUCCESS', result: { emailAddress: friend.emailAddress, role: 'moderator' } });
    const mail = mailsTo(t.dataDir, friend.emailAddress).at(-1) as string;
    expect(mail).toContain('Sign in with this address to accept');
    expect(mail).toContain(owner.emailAddress);

    const listed = (await send('GET', `/v1/server/${serverId}/members`, owner.cookie)).json().result;
    expect(listed.invitations.map((i: { emailAddress: string }) => i.emailAddress)).toEqual([friend.emailAddress]);
    // Stored hashed: the database never holds the mailed token.
    const token = tokenMailedTo(friend.emailAddress);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [stored] = await t.ctx.database.db.select().from(serverInvitations).where(eq(serverInvitations.serverId, serverId));
    expect(stored?.tokenHash).not.toContain(token);
    expect(stored!.expiresAt.getTime() - stored!.sentAt.getTime()).toBe(7 * 24 * 60 * 60 * 1000);

    expect((await accept(friend, token)).json()).toEqual({ status: 'SUCCESS', result: { serverId } });
    const mine = (await send('GET', '/v1/user/servers', friend.cookie)).json().result;
    expect(mine).toEqual([expect.objectContaining({ serverId, role: 'moderator' })]);
    const details = (await send('GET', `/v1/server/${serverId}`, friend.cookie)).json().result;
    expect(details).toMatchObject({ role: 'moderator', permissions: [...rolePermissions.moderator] });
    expect((await send('GET', `/v1/server/${serverId}`, owner.cookie)).json().result).toMatchObject({ role: 'owner' });

    const after = (await send('GET', `/v1/server/${serverId}/members`, owner.cookie)).json().result;
    expect(after.invitations).toEqual([]);
    expect(after.members.map((m: { emailAddress: string; role: string }) => [m.emailAddress, m.role])).toEqual([
      [owner.emailAddress, 'owner'],
      [friend.emailAddress, 'moderator'],
    ]);
  });

  it('a new address registers and then accepts (which also verifies it); the token works once', async () => {
    const owner = await account();
    const serverId = await serverOf(owner);
    const emailAddress = uniqueEmail('newcomer');
    await invite(serverId, owner, emailAddress, 'viewer');
    expect(mailsTo(t.dataDir, emailAddress)[0]).toContain('Create a free account with this address');
    const token = tokenMailedTo(emailAddress);
    // Before signing up, the link says who invited whom to which server (the register page shows it).
    const preview = (body: unknown) => send('POST', '/v1/invitations/preview', undefined, body);
    const [row] = await t.ctx.database.db.select({ name: servers.name }).from(servers).where(eq(servers.id, serverId));
    expect((await preview({ token })).json().result).toEqual({
      serverName: row?.name,
      role: 'viewer',
      emailAddress,
      invitedBy: owner.emailAddress,
    });
    expect((await preview({ token: 'x'.repeat(32) })).json()).toMatchObject({
      status: 'INVALID_INPUT',
      message: memberMessages.invalidToken,
    });
    const newcomer = await register(emailAddress);
    expect((await accept(newcomer, token)).json().result).toEqual({ serverId });
    expect((await preview({ token })).json()).toMatchObject({ status: 'INVALID_STATE', message: memberMessages.usedToken });
    expect((await send('GET', '/v1/user/me', newcomer.cookie)).json().result.emailVerified).toBe(true);

    const again = await accept(newcomer, token);
    expect([again.statusCode, again.json().message]).toEqual([409, memberMessages.usedToken]);
  });

  it('refuses another address, an expired, a revoked, a replaced, an unknown and a malformed token, clearly', async () => {
    const owner = await account();
    const friend = await account();
    const stranger = await account();
    const serverId = await serverOf(owner);
    await invite(serverId, owner, friend.emailAddress);
    const token = tokenMailedTo(friend.emailAddress);

    const wrong = await accept(stranger, token);
    expect([wrong.statusCode, wrong.json().message]).toEqual([403, memberMessages.otherAddress]);

    await t.ctx.database.db
      .update(serverInvitations)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(serverInvitations.serverId, serverId));
    const expired = await accept(friend, token);
    expect([expired.statusCode, expired.json().message]).toEqual([409, memberMessages.expiredToken]);
    // An expired invitation is no longer pending, so the same address can be invited again.
    const invitationId = (await invite(serverId, owner, friend.emailAddress)).json().result.invitationId as string;
    const second = tokenMailedTo(friend.emailAddress);

    await send('POST', `/v1/server/${serverId}/invitations/${invitationId}/resend`, owner.cookie);
    const third = tokenMailedTo(friend.emailAddress);
    expect(third).not.toBe(second);
    const replaced = await accept(friend, second);
    expect([replaced.statusCode, replaced.json().message]).toEqual([400, memberMessages.invalidToken]);

    expect((await send('DELETE', `/v1/server/${serverId}/invitations/${invitationId}`, owner.cookie)).json().status).toBe('SUCCESS');
    const revoked = await accept(friend, third);
    expect([revoked.statusCode, revoked.json().message]).toEqual([400, memberMessages.invalidToken]);

    const unknown = await accept(friend, randomBytes(32).toString('base64url'));
    expect([unknown.statusCode, unknown.json().message]).toEqual([400, memberMessages.invalidToken]);
    const malformed = await accept(friend, 'short');
    expect([malformed.statusCode, malformed.json().status]).toEqual([400, 'INVALID_INPUT']);
    expect((await send('GET', '/v1/user/servers', friend.cookie)).json().result).toEqual([]);
  });

  it('lets exactly one of two accepts at once through', async () => {
    const owner = await account();
    const friend = await account();
    const serverId = await serverOf(owner);
    await invite(serverId, owner, friend.emailAddress);
    const token = tokenMailedTo(friend.emailAddress);
    const answers = await Promise.all([accept(friend, token), accept(friend, token), accept(friend, token)]);
    expect(answers.map((a) => a.json().status).sort()).toEqual(['INVALID_STATE', 'INVALID_STATE', 'SUCCESS']);
    const rows = await t.ctx.database.db.select().from(serverMembers).where(eq(serverMembers.serverId, serverId));
    expect(rows).toHaveLength(1);
  });

  it('a removed or demoted administrator cannot come back through invitations sent beforehand', async () => {
    const owner = await account();
    const admin = await account();
    const serverId = await serverOf(owner);
    await addMember(serverId, admin, 'administrator');
    // Before being removed, the administrator invites a second mailbox of their own, as administrator.
    const spare = await account();
    await invite(serverId, admin, spare.emailAddress, 'administrator');
    const spareToken = tokenMailedTo(spare.emailAddress);
    // And one invitation the owner then resends (the owner stands behind it from then on).
    const kept = await account();
    const keptId = (await invite(serverId, admin, kept.emailAddress, 'viewer')).json().result.invitationId as string;
    await send('POST', `/v1/server/${serverId}/invitations/${keptId}/resend`, owner.cookie);

    expect((await send('DELETE', `/v1/server/${serverId}/members/${admin.userId}`, owner.cookie)).json().status).toBe('SUCCESS');
    const listed = (await send('GET', `/v1/server/${serverId}/members`, owner.cookie)).json().result;
    expect(listed.invitations.map((i: { emailAddress: string }) => i.emailAddress)).toEqual([kept.emailAddress]);
    const log = (await send('GET', `/v1/server/${serverId}/activity`, owner.cookie)).json().result;
    expect(log.entries.map((e: { action: string; target: string }) => [e.action, e.target])).toContainEqual([
      'invitation.revoke',
      `${spare.emailAddress} (sent by ${admin.emailAddress})`,
    ]);
    const refused = await accept(spare, spareToken);
    expect([refused.statusCode, refused.json().message]).toEqual([400, memberMessages.invalidToken]);
    expect((await send('GET', '/v1/user/servers', spare.cookie)).json().result).toEqual([]);
    expect((await accept(kept, tokenMailedTo(kept.emailAddress))).json().status).toBe('SUCCESS');

    // Demoted to moderator (no `members.manage`): the invitations they sent go the same way.
    const other = await account();
    await addMember(serverId, other, 'administrator');
    const friend = await account();
    await invite(serverId, other, friend.emailAddress, 'viewer');
    const friendToken = tokenMailedTo(friend.emailAddress);
    await send('PUT', `/v1/server/${serverId}/members/${other.userId}`, owner.cookie, { role: 'moderator' });
    expect((await accept(friend, friendToken)).json().message).toBe(memberMessages.invalidToken);

    // Even a row the revocation missed (written around it) is refused on accept, and stays open.
    const late = await account();
    const lateToken = randomBytes(32).toString('base64url');
    await t.ctx.database.db.insert(serverInvitations).values({
      id: randomBytes(9).toString('base64url'),
      serverId,
      emailAddress: late.emailAddress,
      role: 'administrator',
      tokenHash: sha256(lateToken),
      invitedBy: other.userId,
      sentAt: new Date(),
      expiresAt: new Date(Date.now() + 60_000),
    });
    const voided = await accept(late, lateToken);
    expect([voided.statusCode, voided.json().message]).toEqual([409, memberMessages.senderGone]);
    const [row] = await t.ctx.database.db.select().from(serverInvitations).where(eq(serverInvitations.emailAddress, late.emailAddress));
    expect(row?.acceptedAt).toBeNull();
    expect((await send('GET', '/v1/user/servers', late.cookie)).json().result).toEqual([]);
  });

  it('a member leaves a server on their own (and the invitations they sent go with them); the owner cannot', async () => {
    const owner = await account();
    const admin = await account();
    const serverId = await serverOf(owner);
    await addMember(serverId, admin, 'administrator');
    const friend = await account();
    await invite(serverId, admin, friend.emailAddress, 'viewer');
    const friendToken = tokenMailedTo(friend.emailAddress);

    const left = await send('POST', `/v1/server/${serverId}/leave`, admin.cookie);
    expect(left.json()).toEqual({ status: 'SUCCESS', result: null });
    expect((await send('GET', '/v1/user/servers', admin.cookie)).json().result).toEqual([]);
    expect((await send('GET', `/v1/server/${serverId}`, admin.cookie)).json().status).toBe('NOT_FOUND');
    expect((await accept(friend, friendToken)).json().message).toBe(memberMessages.invalidToken);
    const log = (await send('GET', `/v1/server/${serverId}/activity`, owner.cookie)).json().result;
    expect(log.entries.map((e: { action: string; target: string }) => [e.action, e.target])).toContainEqual([
      'member.leave',
      `${admin.emailAddress} (administrator)`,
    ]);

    const ownerLeaves = await send('POST', `/v1/server/${serverId}/leave`, owner.cookie);
    expect([ownerLeaves.statusCode, ownerLeaves.json().message]).toEqual([409, memberMessages.ownerLeave]);
  });

  it('sends one invitation when the same address is invited twice at once (a double click, two tabs)', async () => {
    const owner = await account();
    const friend = uniqueEmail('twice');
    const serverId = await serverOf(owner);
    const answers = await Promise.all([invite(serverId, owner, friend), invite(serverId, owner, friend), invite(serverId, owner, friend)]);
    expect(answers.map((a) => a.json().status).sort()).toEqual(['INVALID_STATE', 'INVALID_STATE', 'SUCCESS']);
    expect(answers.map((a) => a.json().message)).toContain(memberMessages.alreadyInvited);
    const rows = await t.ctx.database.db.select().from(serverInvitations).where(eq(serverInvitations.serverId, serverId));
    expect(rows).toHaveLength(1);
    await t.drain();
    expect(mailsTo(t.dataDir, friend)).toHaveLength(1);
  });

  it('refuses inviting oneself, the owner, a member, a pending address again, and roles above one’s own', async () => {
    const owner = await account();
    const admin = await account();
    const moderator = await account();
    const serverId = await serverOf(owner);
    await addMember(serverId, admin, 'administrator');
    await addMember(serverId, moderator, 'moderator');

    const self = await invite(serverId, admin, admin.emailAddress);
    expect([self.statusCode, self.json().message]).toEqual([400, memberMessages.inviteSelf]);
    const theOwner = await invite(serverId, admin, owner.emailAddress);
    expect([theOwner.statusCode, theOwner.json().message]).toEqual([400, memberMessages.inviteOwner]);
    const member = await invite(serverId, admin, moderator.emailAddress);
    expect([member.statusCode, member.json().message]).toEqual([409, memberMessages.alreadyMember]);
    const fresh = uniqueEmail('pending');
    expect((await invite(serverId, admin, fresh, 'administrator')).json().status).toBe('SUCCESS');
    const twice = await invite(serverId, admin, fresh);
    expect([twice.statusCode, twice.json().message]).toEqual([409, memberMessages.alreadyInvited]);
    const badRole = await invite(serverId, owner, uniqueEmail(), 'owner');
    expect([badRole.statusCode, badRole.json().status]).toEqual([400, 'INVALID_INPUT']);
    // A moderator lacks members.manage altogether.
    const byModerator = await invite(serverId, moderator, uniqueEmail());
    expect([byModerator.statusCode, byModerator.json().message]).toEqual([403, errorMessage('NO_PERMISSION')]);
  });

  it('changes and removes members, but never one’s own role, the owner, or someone above', async () => {
    const owner = await account();
    const admin = await account();
    const other = await account();
    const viewer = await account();
    const serverId = await serverOf(owner);
    await addMember(serverId, admin, 'administrator');
    await addMember(serverId, other, 'administrator');
    await addMember(serverId, viewer, 'viewer');

    const own = await send('PUT', `/v1/server/${serverId}/members/${admin.userId}`, admin.cookie, { role: 'viewer' });
    expect([own.statusCode, own.json().message]).toEqual([400, memberMessages.ownRole]);
    const ofOwner = await send('DELETE', `/v1/server/${serverId}/members/${owner.userId}`, admin.cookie);
    expect([ofOwner.statusCode, ofOwner.json().message]).toEqual([400, memberMessages.ownerRole]);
    const ownerSelf = await send('PUT', `/v1/server/${serverId}/members/${owner.userId}`, owner.cookie, { role: 'viewer' });
    expect(ownerSelf.statusCode).toBe(400);

    expect((await send('PUT', `/v1/server/${serverId}/members/${viewer.userId}`, admin.cookie, { role: 'moderator' })).json().status).toBe(
      'SUCCESS',
    );
    expect((await send('GET', `/v1/server/${serverId}`, viewer.cookie)).json().result.role).toBe('moderator');
    expect((await send('DELETE', `/v1/server/${serverId}/members/${other.userId}`, owner.cookie)).json().status).toBe('SUCCESS');
    const gone = await send('GET', `/v1/server/${serverId}`, other.cookie);
    expect([gone.statusCode, gone.json().status]).toEqual([404, 'NOT_FOUND']);
  });
});

describe('schedules of a member who loses the right to them', () => {
  it('are paused (and logged) when their author is removed, demoted or leaves; resumed, they are the resumer’s', async () => {
    const owner = await account();
    const removed = await account();
    const demoted = await account();
    const leaving = await account();
    const serverId = await serverOf(owner);
    const listed = async () =>
      (await send('GET', `/v1/server/${serverId}/schedules`, owner.cookie)).json().result.schedules as {
        scheduleId: string;
        name: string;
        enabled: boolean;
      }[];
    const make = async (by: Account, name: string) => {
      const body = { name, cron: '0 4 * * *', timeZone: 'UTC', action: { kind: 'command', command: 'op Mallory' } };
      expect((await send('POST', `/v1/server/${serverId}/schedules`, by.cookie, body)).json().status).toBe('SUCCESS');
    };
    for (const [who, name] of [
      [removed, 'by removed'],
      [demoted, 'by demoted'],
      [leaving, 'by leaving'],
    ] as const) {
      await addMember(serverId, who, 'administrator');
      await make(who, name);
    }
    await make(owner, 'by owner');

    expect((await send('DELETE', `/v1/server/${serverId}/members/${removed.userId}`, owner.cookie)).json().status).toBe('SUCCESS');
    expect((await send('PUT', `/v1/server/${serverId}/members/${demoted.userId}`, owner.cookie, { role: 'moderator' })).json().status).toBe(
      'SUCCESS',
    );
    expect((await send('POST', `/v1/server/${serverId}/leave`, leaving.cookie)).json().status).toBe('SUCCESS');
    const enabled = Object.fromEntries((await listed()).map((s) => [s.name, s.enabled]));
    expect(enabled).toEqual({ 'by removed': false, 'by demoted': false, 'by leaving': false, 'by owner': true });
    const log = (await send('GET', `/v1/server/${serverId}/activity`, owner.cookie)).json().result.entries as {
      action: string;
      target: string;
    }[];
    expect(log.filter((e) => e.action === 'schedule.update').map((e) => e.target)).toEqual([
      `by leaving: paused (made by ${leaving.emailAddress})`,
      `by demoted: paused (made by ${demoted.emailAddress})`,
      `by removed: paused (made by ${removed.emailAddress})`,
    ]);
    // Nothing of theirs runs: paused schedules are never due.
    const [row] = await t.ctx.database.db.select().from(serverSchedules).where(eq(serverSchedules.name, 'by removed'));
    expect(row).toMatchObject({ enabled: false, nextRunAt: null });

    // The owner resumes one after reading it: it runs again, on the owner's authority.
    const paused = (await listed()).find((s) => s.name === 'by removed');
    const body = { name: 'by removed', cron: '0 4 * * *', timeZone: 'UTC', action: { kind: 'command', command: 'say hi' }, enabled: true };
    expect((await send('PUT', `/v1/server/${serverId}/schedules/${paused?.scheduleId}`, owner.cookie, body)).json().status).toBe('SUCCESS');
    const [resumed] = await t.ctx.database.db
      .select()
      .from(serverSchedules)
      .where(eq(serverSchedules.id, paused?.scheduleId ?? ''));
    expect(resumed).toMatchObject({ enabled: true, createdBy: owner.userId });

    // A member who deletes their account leaves no schedule of theirs running either.
    const gone = await account();
    await addMember(serverId, gone, 'administrator');
    await make(gone, 'by deleted');
    expect((await send('POST', '/v1/user/delete', gone.cookie, { password: PASSWORD })).json().status).toBe('SUCCESS');
    expect(Object.fromEntries((await listed()).map((s) => [s.name, s.enabled]))['by deleted']).toBe(false);
    const last = (await send('GET', `/v1/server/${serverId}/activity`, owner.cookie)).json().result.entries[0];
    expect(last).toMatchObject({
      action: 'schedule.update',
      target: `by deleted: paused (made by ${gone.emailAddress}, whose account was deleted)`,
    });
  });
});

describe('backups a moderator makes', () => {
  it('never delete older ones: with every slot used a moderator is refused, an administrator may rotate', async () => {
    const owner = await account();
    const moderator = await account();
    const admin = await account();
    const serverId = await serverOf(owner);
    await addMember(serverId, moderator, 'moderator');
    await addMember(serverId, admin, 'administrator');
    const create = (by: Account) => send('POST', `/v1/server/${serverId}/backups`, by.cookie);
    // A free server keeps FREE_BACKUP_LIMIT backups; one slot left, a moderator's backup goes to the node.
    for (let i = 1; i < FREE_BACKUP_LIMIT; i++)
      await t.ctx.database.db.insert(backups).values({ id: `kept-${serverId}-${i}`, serverId, status: 'complete' });
    expect((await create(moderator)).json().status).toBe('NODE_UNAVAILABLE');
    // Every slot used: the moderator's backup would delete the oldest when it completes.
    await t.ctx.database.db.insert(backups).values({ id: `kept-${serverId}-last`, serverId, status: 'complete' });
    const refused = await create(moderator);
    expect([refused.statusCode, refused.json()]).toEqual([
      403,
      { status: 'NO_PERMISSION', message: backupSlotsFullMessage(FREE_BACKUP_LIMIT) },
    ]);
    expect(await t.ctx.database.db.select().from(backups).where(eq(backups.serverId, serverId))).toHaveLength(FREE_BACKUP_LIMIT);
    // An administrator (who may delete backups) passes that check; only the missing node stops it here.
    expect((await create(admin)).json().status).toBe('NODE_UNAVAILABLE');
  });
});

describe('ids of one server used under another (IDOR)', () => {
  it('finds nothing of server A under server B, even for an administrator of both', async () => {
    const ownerA = await account();
    const ownerB = await account();
    const admin = await account();
    const a = await serverOf(ownerA);
    const b = await serverOf(ownerB);
    await addMember(a, admin, 'administrator');
    await addMember(b, admin, 'administrator');
    const viewerOfA = await account();
    await addMember(a, viewerOfA, 'viewer');
    await t.ctx.database.db.insert(backups).values({ id: 'backup-of-a', serverId: a, status: 'complete' });
    const invitationId = (await invite(a, ownerA, uniqueEmail())).json().result.invitationId as string;

    const tries = [
      send('GET', `/v1/server/${b}/backups/backup-of-a/download`, admin.cookie),
      send('POST', `/v1/server/${b}/backups/backup-of-a/lock`, admin.cookie, { locked: true }),
      send('DELETE', `/v1/server/${b}/backups/backup-of-a`, admin.cookie),
      send('POST', `/v1/server/${b}/backups/backup-of-a/restore`, admin.cookie),
      send('DELETE', `/v1/server/${b}/invitations/${invitationId}`, admin.cookie),
      send('POST', `/v1/server/${b}/invitations/${invitationId}/resend`, admin.cookie),
      send('PUT', `/v1/server/${b}/members/${viewerOfA.userId}`, admin.cookie, { role: 'administrator' }),
      send('DELETE', `/v1/server/${b}/members/${viewerOfA.userId}`, admin.cookie),
    ];
    for (const res of await Promise.all(tries)) expect([res.statusCode, res.json().status]).toEqual([404, 'NOT_FOUND']);
    const [backup] = await t.ctx.database.db.select().from(backups).where(eq(backups.id, 'backup-of-a'));
    expect(backup).toMatchObject({ serverId: a, locked: false });
    const listed = (await send('GET', `/v1/server/${a}/members`, ownerA.cookie)).json().result;
    expect(listed.invitations).toHaveLength(1);
    expect(listed.members.find((m: { userId: string }) => m.userId === viewerOfA.userId)?.role).toBe('viewer');
  });
});

describe('live revocation', () => {
  it('a removal while a subscribe is being checked does not leave that console open', async () => {
    const owner = await account();
    const member = await account();
    const serverId = await serverOf(owner);
    await addMember(serverId, member, 'moderator');
    const memberSocket = await authedSocket(member);
    // The member's subscribe is checked (and passes), then the owner removes them before the subscription
    // exists: the removal's ending of their subscriptions finds nothing to end.
    const directory = t.ctx.game.directory;
    const authorize = directory.authorize.bind(directory);
    const spy = vi.spyOn(directory, 'authorize').mockImplementationOnce(async (userId, id, permission) => {
      const row = await authorize(userId, id, permission);
      expect((await send('DELETE', `/v1/server/${serverId}/members/${member.userId}`, owner.cookie)).json().status).toBe('SUCCESS');
      return row;
    });
    try {
      const errors: string[] = [];
      memberSocket.on('server:error', (e: { serverId: string; status: string }) => e.serverId === serverId && errors.push(e.status));
      memberSocket.emit('server:subscribe', { serverId });
      // Told of the removal (NO_PERMISSION), then the subscribe itself is refused: the server is not theirs.
      await until(
        () => errors,
        (seen) => seen.includes('NOT_FOUND'),
      );
      expect(t.ctx.game.hub.subscriberCount(serverId)).toBe(0);
    } finally {
      spy.mockRestore();
    }
  });

  it('stops a removed member’s console at once and refuses their next command', async () => {
    const owner = await account();
    const member = await account();
    const serverId = await serverOf(owner);
    await addMember(serverId, member, 'moderator');
    const ownerSocket = await authedSocket(owner);
    const memberSocket = await authedSocket(member);
    const lines = (socket: Socket) => {
      const seen: string[] = [];
      socket.on('server:console', (p: { lines: string[] }) => seen.push(...p.lines));
      return seen;
    };
    const ownerLines = lines(ownerSocket);
    const memberLines = lines(memberSocket);
    ownerSocket.emit('server:subscribe', { serverId });
    memberSocket.emit('server:subscribe', { serverId });
    await until(
      () => t.ctx.game.hub.subscriberCount(serverId),
      (n) => n === 2,
    );
    t.ctx.game.hub.intake.lines('ghost-node', serverId, ['first line']);
    await until(
      () => memberLines.join('\n'),
      (text) => text.includes('first line'),
    );

    // Every change of the member's access is said to their sockets, so an open page follows it.
    const accessEvents: unknown[] = [];
    memberSocket.on('server:access', (p: unknown) => accessEvents.push(p));

    // Lowered to viewer: the console keeps streaming, commands are refused at once.
    expect((await send('PUT', `/v1/server/${serverId}/members/${member.userId}`, owner.cookie, { role: 'viewer' })).json().status).toBe(
      'SUCCESS',
    );
    await until(
      () => accessEvents.length,
      (n) => n === 1,
    );
    expect(accessEvents).toEqual([{ serverId, role: 'viewer' }]);
    const refusedCommand = nextError(memberSocket, serverId);
    memberSocket.emit('server:command', { serverId, command: 'op me' });
    expect((await refusedCommand).status).toBe('NO_PERMISSION');

    // Removed: the socket is told, and no further line reaches it.
    const told = nextError(memberSocket, serverId);
    expect((await send('DELETE', `/v1/server/${serverId}/members/${member.userId}`, owner.cookie)).json().status).toBe('SUCCESS');
    expect(await told).toEqual({ serverId, status: 'NO_PERMISSION', message: errorMessage('NO_PERMISSION') });
    await until(
      () => accessEvents.length,
      (n) => n === 2,
    );
    expect(accessEvents[1]).toEqual({ serverId, role: null });
    expect(t.ctx.game.hub.subscriberCount(serverId)).toBe(1);
    t.ctx.game.hub.intake.lines('ghost-node', serverId, ['second line']);
    await until(
      () => ownerLines.join('\n'),
      (text) => text.includes('second line'),
    );
    expect(memberLines.join('\n')).not.toContain('second line');
    const again = nextError(memberSocket, serverId);
    memberSocket.emit('server:subscribe', { serverId });
    expect((await again).status).toBe('NOT_FOUND');
    const command = nextError(memberSocket, serverId);
    memberSocket.emit('server:command', { serverId, command: 'op me' });
    expect((await command).status).toBe('NOT_FOUND');
  });
});

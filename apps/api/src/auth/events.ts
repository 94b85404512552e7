import type { AccountEventType } from '@spawnpoint/contracts';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/index.ts';
import { accountEvents } from '../db/schema.ts';
import { newId } from './tokens.ts';

/** Appends to the account's activity log (shown on /account/security). */
export async function recordEvent(db: Db, userId: string, type: AccountEventType, request: FastifyRequest): Promise<void> {
  await db.insert(accountEvents).values({
    id: newId(),
    userId,
    type,
    ip: request.ip,
    userAgent: request.headers['user-agent']?.slice(0, 512) ?? null,
  });
}

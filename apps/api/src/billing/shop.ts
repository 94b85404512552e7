import { planById, plans, shopItem, shopItems, type ShopIconArt, type ShopResult } from '@spawnpoint/contracts';
import { and, count, eq, isNull } from 'drizzle-orm';
import sharp from 'sharp';
import { newId } from '../auth/tokens.ts';
import type { Db } from '../db/index.ts';
import { entitlements, servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { DbOrTx } from '../servers/activity.ts';
import { balanceOf, openPurchase, purchase } from './ledger.ts';

type ServerRef = { id: string; ownerId: string };

/** A server's backups kept and disk: its plan's, and what was bought for it. */
export function serverExtras(row: { planId: string; extraBackups: number; extraDiskMb: number }): { backups: number; diskMb: number } {
  const plan = planById(row.planId) ?? plans[0];
  return { backups: plan.backups + row.extraBackups, diskMb: plan.diskMb + row.extraDiskMb };
}

/**
 * The shop: each purchase is one transaction with the owner's account locked — the debit (and an
 * affiliate's commission), the entitlement row, and for a server's item its new limit — so a crash
 * between them leaves none of them. A replayed idempotency key buys nothing more.
 */
export class Shop {
  constructor(
    private db: Db,
    private commissionPercent: number,
  ) {}

  /** Icons the account owns (item ids). */
  async iconsOf(db: DbOrTx, userId: string): Promise<Set<string>> {
    const rows = await db
      .select({ itemId: entitlements.itemId })
      .from(entitlements)
      .where(and(eq(entitlements.userId, userId), isNull(entitlements.serverId)));
    return new Set(rows.map((r) => r.itemId));
  }

  async view(server: ServerRef): Promise<ShopResult> {
    const [[row], icons, perServer, balanceCents] = await Promise.all([
      this.db.select().from(servers).where(eq(servers.id, server.id)).limit(1),
      this.iconsOf(this.db, server.ownerId),
      this.db
        .select({ itemId: entitlements.itemId, n: count() })
        .from(entitlements)
        .where(eq(entitlements.serverId, server.id))
        .groupBy(entitlements.itemId),
      balanceOf(this.db, server.ownerId),
    ]);
    if (!row) throw new ApiError('NOT_FOUND');
    const counts = new Map(perServer.map((r) => [r.itemId, Number(r.n)]));
    const extras = serverExtras(row);
    return {
      balanceCents,
      backupLimit: extras.backups,
      diskMb: extras.diskMb,
      items: shopItems.map((item) => ({
        id: item.id,
        kind: item.kind,
        scope: item.scope,
        name: item.name,
        summary: item.summary,
        priceCents: item.priceCents,
        owned: item.kind === 'icon' ? (icons.has(item.id) ? 1 : 0) : (counts.get(item.id) ?? 0),
        max: item.kind === 'icon' ? 1 : item.max,
      })),
    };
  }

  /** Buys one item for the server (an icon for its owner's account); answers whether the server's limits changed. */
  async buy(server: ServerRef, itemId: string, idempotencyKey: string): Promise<boolean> {
    const item = shopItem(itemId);
    if (!item) throw new ApiError('INVALID_INPUT', { itemId: 'There is no such item in the shop.' }, 'There is no such item in the shop.');
    return this.db.transaction(async (tx) => {
      const row = await openPurchase(tx, server, idempotencyKey, { now: item.id });
      if (!row) return false;
      if (item.kind === 'icon') {
        if ((await this.iconsOf(tx, server.ownerId)).has(item.id))
          throw new ApiError('INVALID_STATE', undefined, `You already have the ${item.name} icon. Choose it on the Appearance page.`);
      } else {
        const [had] = await tx
          .select({ n: count() })
          .from(entitlements)
          .where(and(eq(entitlements.serverId, server.id), eq(entitlements.itemId, item.id)));
        if (Number(had?.n ?? 0) >= item.max)
          throw new ApiError('INVALID_STATE', undefined, `This server has the most of “${item.name}” it can have (${item.max}).`);
      }
      const { row: debit } = await purchase(
        tx,
        {
          userId: server.ownerId,
          amountCents: -item.priceCents,
          kind: 'shop',
          reference: item.id,
          description: item.scope === 'account' ? `Shop: ${item.name} icon` : `Shop: ${item.name} for ${row.name}`,
          idempotencyKey,
        },
        this.commissionPercent,
      );
      await tx.insert(entitlements).values({
        id: newId(),
        userId: server.ownerId,
        serverId: item.scope === 'server' ? server.id : null,
        itemId: item.id,
        ledgerEntryId: debit.id,
      });
      if (item.kind === 'backup-slot')
        await tx
          .update(servers)
          .set({ extraBackups: row.extraBackups + 1 })
          .where(eq(servers.id, server.id));
      if (item.kind === 'disk')
        await tx
          .update(servers)
          .set({ extraDiskMb: row.extraDiskMb + item.diskMb })
          .where(eq(servers.id, server.id));
      return item.scope === 'server';
    });
  }
}

/** A shop icon as the server's 64×64 PNG: each of its 8×8 pixels an 8×8 square. */
export async function shopIconPng(art: ShopIconArt): Promise<Buffer> {
  const size = 8;
  const raw = Buffer.alloc(size * size * 3);
  art.rows.forEach((line, y) =>
    Array.from(line).forEach((key, x) => {
      const hex = art.palette[key] ?? '#000000';
      const at = (y * size + x) * 3;
      raw[at] = parseInt(hex.slice(1, 3), 16);
      raw[at + 1] = parseInt(hex.slice(3, 5), 16);
      raw[at + 2] = parseInt(hex.slice(5, 7), 16);
    }),
  );
  return sharp(raw, { raw: { width: size, height: size, channels: 3 } })
    .resize(64, 64, { kernel: 'nearest' })
    .png()
    .toBuffer();
}

import { bigint, bigserial, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import type { AccountEventType, ScheduleAction, ServerActivityAction } from '@spawnpoint/contracts';
import { joinStartModes } from '@spawnpoint/contracts';

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    emailAddress: text('email_address').notNull(),
    passwordHash: text('password_hash').notNull(),
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
    lockedAt: timestamp('locked_at', { withTimezone: true }),
    /** Mirrors two_factor.enabled_at so the cached session row answers userData without a join. */
    twoFactorEnabledAt: timestamp('two_factor_enabled_at', { withTimezone: true }),
    referral: text('referral'),
    /** This user's own code for the affiliate programme (made on first request). */
    referralCode: text('referral_code'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('users_email_address_key').on(t.emailAddress), uniqueIndex('users_referral_code_key').on(t.referralCode)],
);

export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    userAgent: text('user_agent'),
    ip: text('ip'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex('sessions_token_hash_key').on(t.tokenHash), index('sessions_user_id_idx').on(t.userId)],
);

/** Single-use, hashed, expiring tokens sent by email. */
export const emailTokens = pgTable(
  'email_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: ['verify_email', 'password_reset'] }).notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('email_tokens_token_hash_key').on(t.tokenHash), index('email_tokens_user_id_idx').on(t.userId)],
);

export const feedback = pgTable('feedback', {
  id: text('id').primaryKey(),
  userId: text('user_id').references(() => users.id, { onDelete: 'set null' }),
  message: text('message').notNull(),
  route: text('route').notNull(),
  userAgent: text('user_agent'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const servers = pgTable(
  'servers',
  {
    id: text('id').primaryKey(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    software: text('software').notNull(),
    version: text('version').notNull(),
    nodeId: text('node_id').notNull(),
    port: integer('port').notNull(),
    memoryMb: integer('memory_mb').notNull(),
    maxPlayers: integer('max_players').notNull(),
    /** Shown on the public server list (/server-list); the owner opts in. */
    publicListing: boolean('public_listing').notNull().default(false),
    /** Set while the server sleeps (the node knows it only as stopped), so an API restart keeps `sleeping`. */
    sleepingSince: timestamp('sleeping_since', { withTimezone: true }),
    /**
     * Set while a sleeping server's folder is in shared storage instead of on a node (`s3://host/bucket`, as
     * the nodes name it), with the SHA-256 of its archive: it wakes on any node that names the same storage,
     * and is fetched only if the archive still has that digest. `nodeId` and `port` are where it last ran.
     */
    storedIn: text('stored_in'),
    storedSha256: text('stored_sha256'),
    /** Java servers: when the owner (or an administrator) accepted the Minecraft EULA for it. */
    eulaAcceptedAt: timestamp('eula_accepted_at', { withTimezone: true }),
    /** Java servers: the join proxy sends a PROXY protocol v2 header first (the owner turned it on). */
    proxyProtocol: boolean('proxy_protocol').notNull().default(false),
    joinStart: text('join_start', { enum: joinStartModes }).notNull().default('always'),
    /**
     * The public server list's copy of the MOTD (saved `§` form) and icon (a data URL), so a visitor's
     * request never reaches a node: set when the Appearance or Properties page saves them and read again
     * from the folder when a listed server stops (the file manager or game code may have changed them).
     */
    listMotd: text('list_motd').notNull().default(''),
    /** The plan whose limits the server has now: `free`, or the plan of its active subscription. */
    planId: text('plan_id').notNull().default('free'),
    /** Bought in the shop for this server, on top of its plan's: backups kept and disk. */
    extraBackups: integer('extra_backups').notNull().default(0),
    extraDiskMb: integer('extra_disk_mb').notNull().default(0),
    listIcon: text('list_icon'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('servers_name_key').on(t.name),
    uniqueIndex('servers_node_port_key').on(t.nodeId, t.port),
    index('servers_owner_id_idx').on(t.ownerId),
  ],
);

/** Two-factor state of an account; the secret is encrypted at rest (AES-256-GCM). */
export const twoFactor = pgTable('two_factor', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secretEncrypted: text('secret_encrypted').notNull(),
  enabledAt: timestamp('enabled_at', { withTimezone: true }),
  /** The last 30-second step accepted; a code of that step or earlier is never accepted again. */
  lastStep: integer('last_step').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('recovery_codes_user_id_idx').on(t.userId)],
);

export const accountEvents = pgTable(
  'account_events',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    // Written only by recordEvent, which takes an AccountEventType.
    type: text('type').$type<AccountEventType>().notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('account_events_user_id_idx').on(t.userId, t.createdAt)],
);

/** Pending change of address: confirmed through a link sent to the new address. */
export const emailChanges = pgTable('email_changes', {
  id: text('id').primaryKey(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  newEmailAddress: text('new_email_address').notNull(),
  tokenHash: text('token_hash').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
});

/** Backups; only `complete` ones are ever listed. `pending` rows left by a crash are removed at start. */
export const backups = pgTable(
  'backups',
  {
    id: text('id').primaryKey(),
    serverId: text('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'complete'] }).notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull().default(0),
    sha256: text('sha256').notNull().default(''),
    locked: boolean('locked').notNull().default(false),
    // The schedule that made it (its own retention applies to it); null for backups made by hand.
    scheduleId: text('schedule_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('backups_server_id_idx').on(t.serverId, t.createdAt)],
);

export const giveaways = pgTable('giveaways', {
  slug: text('slug').primaryKey(),
  title: text('title').notNull(),
  deadline: timestamp('deadline', { withTimezone: true }).notNull(),
  winnersCount: integer('winners_count').notNull(),
  /** Recorded at the draw so anyone can recompute the winners. */
  seed: text('seed'),
  drawnAt: timestamp('drawn_at', { withTimezone: true }),
});

export const giveawayEntries = pgTable(
  'giveaway_entries',
  {
    id: text('id').primaryKey(),
    slug: text('slug')
      .notNull()
      .references(() => giveaways.slug, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    winner: boolean('winner').notNull().default(false),
  },
  (t) => [uniqueIndex('giveaway_entries_slug_user_key').on(t.slug, t.userId)],
);

/**
 * Play time an account used on one UTC day, in whole seconds: counted while any of its
 * servers runs, saved every 15 s and when it stops; the allowance is the plan's daily minutes.
 */
export const playTime = pgTable(
  'play_time',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The UTC day, YYYY-MM-DD. */
    day: text('day').notNull(),
    usedSeconds: integer('used_seconds').notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day] })],
);

/** Members of a server besides its owner, with their role; the owner is `servers.owner_id`. */
export const serverMembers = pgTable(
  'server_members',
  {
    serverId: text('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['viewer', 'moderator', 'administrator'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.serverId, t.userId] }), index('server_members_user_id_idx').on(t.userId)],
);

/**
 * Invitations to a server: the token of the mailed link is stored hashed, works once
 * (`accepted_at`), for 7 days, and only for the invited address. Revoked ones are deleted.
 */
export const serverInvitations = pgTable(
  'server_invitations',
  {
    id: text('id').primaryKey(),
    serverId: text('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    /** Lower-cased, as accounts' addresses are. */
    emailAddress: text('email_address').notNull(),
    role: text('role', { enum: ['viewer', 'moderator', 'administrator'] }).notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedBy: text('invited_by').references(() => users.id, { onDelete: 'set null' }),
    sentAt: timestamp('sent_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
    acceptedBy: text('accepted_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('server_invitations_token_hash_key').on(t.tokenHash), index('server_invitations_server_id_idx').on(t.serverId)],
);

/**
 * The activity log of a server: who did what, from which address. `seq` orders the entries
 * and is the page cursor; the actor's address is the one at the time (the account may change or go).
 */
export const serverActivity = pgTable(
  'server_activity',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    serverId: text('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    actorId: text('actor_id').references(() => users.id, { onDelete: 'set null' }),
    actorEmail: text('actor_email').notNull(),
    // Written only by recordActivity, which takes a ServerActivityAction.
    action: text('action').$type<ServerActivityAction>().notNull(),
    target: text('target').notNull(),
    ip: text('ip'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('server_activity_server_id_idx').on(t.serverId, t.seq)],
);

/**
 * Schedules of a server. `next_run_at` is the next time the cron expression names; a run is
 * claimed by moving it forward with a compare-and-set (schedule-runner.ts), so one process runs each due
 * time once. Null while disabled.
 */
export const serverSchedules = pgTable(
  'server_schedules',
  {
    id: text('id').primaryKey(),
    serverId: text('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    cron: text('cron').notNull(),
    timeZone: text('time_zone').notNull(),
    // Written only from a parsed ScheduleAction and read back through its schema.
    action: jsonb('action').$type<ScheduleAction>().notNull(),
    onlyWhenOnline: boolean('only_when_online').notNull().default(false),
    enabled: boolean('enabled').notNull().default(true),
    nextRunAt: timestamp('next_run_at', { withTimezone: true }),
    lastRunAt: timestamp('last_run_at', { withTimezone: true }),
    lastResult: text('last_result', { enum: ['ok', 'failed', 'skipped', 'running'] }),
    lastMessage: text('last_message').notNull().default(''),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('server_schedules_server_id_idx').on(t.serverId), index('server_schedules_next_run_idx').on(t.nextRunAt)],
);

/** Who receipts are made out to; one row per account, replaced when changed. */
export const billingProfiles = pgTable('billing_profiles', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  addressLine1: text('address_line1').notNull(),
  addressLine2: text('address_line2').notNull().default(''),
  postalCode: text('postal_code').notNull().default(''),
  city: text('city').notNull(),
  country: text('country').notNull(),
  vatId: text('vat_id').notNull().default(''),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The money ledger: one row per credit or debit, never updated or deleted; an account's
 * balance is the sum of its rows. `seq` orders rows (and numbers receipts). No foreign key to users: the
 * rows stay when an account is deleted (bookkeeping keeps them). `idempotency_key` is unique per account,
 * so a replayed purchase or a re-delivered payment writes nothing.
 */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: text('id').primaryKey(),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    userId: text('user_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    kind: text('kind', { enum: ['topup', 'plan', 'renewal', 'shop', 'refund', 'commission', 'adjustment'] }).notNull(),
    /** What the row is about: a payment id, a subscription id, an item. */
    reference: text('reference').notNull(),
    description: text('description').notNull(),
    idempotencyKey: text('idempotency_key'),
    /** The billing information's lines when the row was written, for its receipt. */
    billedTo: jsonb('billed_to').$type<string[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('ledger_entries_user_key').on(t.userId, t.idempotencyKey), index('ledger_entries_user_seq_idx').on(t.userId, t.seq)],
);

/** Top-ups through a payment provider: pending until the provider confirms (or declines, or the payer leaves). */
export const payments = pgTable(
  'payments',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: ['sandbox', 'stripe'] }).notNull(),
    /** The provider's id of the checkout (a Stripe Checkout Session). */
    providerRef: text('provider_ref'),
    /** The provider's id of the money taken (a Stripe PaymentIntent), set once paid: refunds and disputes name it. */
    chargeRef: text('charge_ref'),
    checkoutUrl: text('checkout_url'),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull(),
    status: text('status', { enum: ['pending', 'succeeded', 'declined', 'abandoned'] })
      .notNull()
      .default('pending'),
    idempotencyKey: text('idempotency_key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('payments_user_key').on(t.userId, t.idempotencyKey),
    uniqueIndex('payments_provider_ref_key').on(t.provider, t.providerRef),
    uniqueIndex('payments_charge_ref_key').on(t.provider, t.chargeRef),
  ],
);

/** Provider events already handled (a re-delivered webhook is answered and changes nothing). */
export const paymentEvents = pgTable(
  'payment_events',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.eventId] })],
);

/**
 * A server's paid plan, paid from its owner's balance one period (a calendar month) at a
 * time. One active row per server; the renewal runner claims a due row with a compare-and-set on its
 * period end inside the debit's transaction, so each period is charged once across restarts and processes.
 */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    serverId: text('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    planId: text('plan_id').notNull(),
    /** A cheaper plan chosen mid-period, taking over at the period's end. */
    nextPlanId: text('next_plan_id'),
    periodStart: timestamp('period_start', { withTimezone: true }).notNull(),
    periodEnd: timestamp('period_end', { withTimezone: true }).notNull(),
    renews: boolean('renews').notNull().default(true),
    status: text('status', { enum: ['active', 'lapsed'] })
      .notNull()
      .default('active'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('subscriptions_active_server_key')
      .on(t.serverId)
      .where(sql`${t.status} = 'active'`),
    index('subscriptions_due_idx').on(t.status, t.periodEnd),
  ],
);

/**
 * What was bought in the shop, one row per item bought, written in the same transaction as its
 * ledger debit. An icon is the account's (`server_id` null); a backup slot or disk is the server's.
 */
export const entitlements = pgTable(
  'entitlements',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    serverId: text('server_id').references(() => servers.id, { onDelete: 'cascade' }),
    itemId: text('item_id').notNull(),
    ledgerEntryId: text('ledger_entry_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('entitlements_user_idx').on(t.userId),
    index('entitlements_server_idx').on(t.serverId),
    uniqueIndex('entitlements_ledger_key').on(t.ledgerEntryId),
  ],
);

/**
 * What the operator set on a node (`npm run operator -- nodes drain <id>`). Nodes themselves are configured
 * (`AGENTS`); a node without a row here takes new servers.
 */
export const nodeSettings = pgTable('node_settings', {
  nodeId: text('node_id').primaryKey(),
  /** No new server is placed on it; its servers keep running and starting there. */
  draining: boolean('draining').notNull().default(false),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

import type { ledgerEntries, servers, users } from './schema.ts';

/**
 * The rows the API passes between its parts, as the database gives them. Here, beside the schema, so a
 * module that only handles a row does not import the command that makes it (which tied servers/ into
 * import circles).
 */
export type ServerRow = typeof servers.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type LedgerRow = typeof ledgerEntries.$inferSelect;

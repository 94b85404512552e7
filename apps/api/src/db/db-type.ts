import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema.ts';

/** The API's database handle, on PGlite or PostgreSQL alike. Its own module so helpers that wrap it need not import the opener. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

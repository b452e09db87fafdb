import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';

/** A Kysely handle on the whole database (outside transactions). */
export type Db = Kysely<DB>;
/** A transaction; community data is only written in the one the write path opens. */
export type Tx = Transaction<DB>;

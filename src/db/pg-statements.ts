import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type PgModule from 'pg';

/**
 * Named prepared statements on PostgreSQL. Kysely's driver sends every query unnamed, so the server
 * parses, analyses and plans it on every execution (0.1-0.3 ms each, ~6 per uncached page:
 * docs/performance.md). A named statement is parsed once per connection and, when PostgreSQL
 * settles on a generic plan, planned once too; each run is then Bind and Execute only.
 *
 * Which texts get a name: those registered by the compiled reads and writes (prepared-query.ts),
 * and any other text with parameters once it has been run a second time in this process (the hot
 * Kysely writes, such as a member add's). A text with no parameters goes through the simple
 * protocol, where a name gains nothing (`begin`, `commit`, DDL). At most `maxNames` names per
 * process: each costs its parse tree and plan on every pooled connection, so the set must stay
 * bounded whatever the traffic; texts beyond it run unnamed, as before.
 *
 * Names are `ca_<n>`, one per distinct text for the life of the process, so one name can never
 * stand for two texts (node-postgres refuses that; the server would run the wrong one). Statements
 * belong to one connection, and every connection belongs to one pool, hence to one search_path
 * (set at connect time, as the tests' schemas are): the same text on two databases is two
 * statements on two connections. A session that changes its search_path is re-analysed by
 * PostgreSQL itself (it keeps the search_path of each cached plan), and so is a statement whose
 * tables a migration altered; the one change it refuses is a different result row type ("cached
 * plan must not change result type", e.g. `select *` after a column was added): that statement is
 * deallocated and run again when the connection is outside a transaction, and inside one the
 * error stands and the connection is discarded when released, so no later query meets it.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  /** Texts seen once, not yet named (cleared when large: it only decides what is hot). */
  private readonly seen = new Set<string>();

  constructor(readonly maxNames = 500) {}

  /** Gives the text a name now (the compiled queries: hot by construction). */
  register(sql: string): void {
    if (!this.names.has(sql) && this.names.size < this.maxNames) this.names.set(sql, `ca_${this.names.size + 1}`);
  }

  /** The name to run the text under, or undefined to run it unnamed. */
  nameOf(sql: string): string | undefined {
    const name = this.names.get(sql);
    if (name !== undefined || this.names.size >= this.maxNames) return name;
    if (!this.seen.has(sql)) {
      if (this.seen.size >= 10_000) this.seen.clear();
      this.seen.add(sql);
      return undefined;
    }
    this.seen.delete(sql);
    this.register(sql);
    return this.names.get(sql);
  }

  get size(): number {
    return this.names.size;
  }
}

/** The process's names: one registry for every pool, so a name always means the same text. */
export const statementNames = new StatementNames();

/**
 * Session statements: prepared with SQL PREPARE on each connection the first time it executes them,
 * and run as `execute <name>(<literals>)`, a text without parameters. That is how a prepared
 * statement rides in a message of several statements (the simple protocol has no parameters and no
 * named statements of its own): parsed and planned once per connection, where a literal SELECT in
 * such a message is parsed and planned on every run (measured: about 70 µs of server CPU for the
 * endpoints read of src/webhooks/record-deliveries.ts, against 10-40 µs executed). Names start with
 * `ca_s_`, apart from the protocol-level `ca_<n>` in the session's one namespace of statements.
 */
const sessionStatements = new Map<string, string>();

/** Declares a session statement; answers the text that executes it with the given SQL literals. */
export function sessionStatement(name: `ca_s_${string}`, types: readonly string[], text: string): (...literals: string[]) => string {
  if (!/^ca_s_[a-z0-9_]+$/.test(name)) throw new Error(`session statement name ${name}: lower case, digits and _ only`);
  sessionStatements.set(name, `prepare ${name} (${types.join(', ')}) as ${text}`);
  return (...literals) => `execute ${name}(${literals.join(', ')})`;
}

/** PostgreSQL's SQLSTATE for "cached plan must not change result type" (feature_not_supported). */
const featureNotSupported = '0A000';

type PgPoolClient = PgModule.PoolClient & {
  connection?: { parsedStatements?: Record<string, string> };
  /** Set by node-postgres from each ReadyForQuery: 'I' idle, 'T' in a transaction, 'E' in a failed one. */
  _txStatus?: string | null;
};

/** What Kysely is answered for a `begin` held back, and for the `commit` or `rollback` of a transaction that sent nothing. */
const unsent = (command: string): PostgresQueryResult<never> => ({ command: command as 'UPDATE', rowCount: 0, rows: [] });

/**
 * One pooled connection as Kysely sees it, running parameterised texts as named statements.
 *
 * It also holds a transaction's `begin` back until the transaction's first statement, and when that
 * statement has no parameters (the simple protocol, which takes several statements in one message)
 * sends both in one round trip: the write path opens every write with such a read (the community's
 * webhook endpoints, src/write-path/write-community-data.ts), which then costs no round trip of its
 * own. Any other first statement is sent after the `begin`, as before; a transaction that sends
 * nothing sends no `begin` and no `commit` either.
 */
class NamingClient implements PostgresPoolClient {
  private broken = false;
  private beginHeld = false;
  /** The session statements this connection has prepared (PREPARE outlives transactions, not connections). */
  private readonly prepared = new Set<string>();

  constructor(
    private readonly client: PgPoolClient,
    private readonly names: StatementNames,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    const client = this.client as unknown as {
      query(config: unknown, values?: unknown): Promise<PostgresQueryResult<R>> & PostgresCursor<R>;
    };
    if (typeof sqlOrCursor !== 'string') {
      // A cursor is returned at once: the held `begin` is queued before it (node-postgres runs a
      // client's queries in order).
      if (this.beginHeld) this.sendHeldBegin().catch(() => {});
      return client.query(sqlOrCursor);
    }
    const values = parameters as unknown[];
    if (values.length === 0) return this.withoutParameters(sqlOrCursor);
    if (this.beginHeld) return this.sendHeldBegin().then(() => this.query<R>(sqlOrCursor, values));
    const name = this.names.nameOf(sqlOrCursor);
    if (name === undefined) return client.query(sqlOrCursor, values);
    const config = { name, text: sqlOrCursor, values };
    return client.query(config).catch((error: unknown) => this.recover(error, config));
  }

  /**
   * A text without parameters (the simple protocol): `begin` is held; a held `begin` goes in the
   * same message; so does the PREPARE of a session statement it executes that this connection has
   * not prepared yet.
   */
  private withoutParameters<R>(sql: string): Promise<PostgresQueryResult<R>> {
    if (sql === 'begin' && !this.beginHeld) {
      this.beginHeld = true;
      return Promise.resolve(unsent('BEGIN'));
    }
    const parts: string[] = [];
    if (this.beginHeld) {
      this.beginHeld = false;
      if (sql === 'commit' || sql === 'rollback') return Promise.resolve(unsent(sql.toUpperCase()));
      parts.push('begin');
    }
    const preparation = this.preparationFor(sql);
    if (preparation) parts.push(preparation.prepare);
    if (parts.length === 0) return this.client.query(sql) as unknown as Promise<PostgresQueryResult<R>>;
    parts.push(sql);
    return this.sendTogether<R>(parts, preparation?.name);
  }

  /** Several statements in one message; answers the last one's result. */
  private async sendTogether<R>(parts: string[], preparing: string | undefined): Promise<PostgresQueryResult<R>> {
    let results: PostgresQueryResult<R>[] | PostgresQueryResult<R>;
    try {
      results = (await this.client.query(parts.join(';\n'))) as unknown as PostgresQueryResult<R>[] | PostgresQueryResult<R>;
    } catch (error) {
      // Whether the PREPARE took is unknown (it outlives a rollback, and a second one fails): this
      // connection must not serve again.
      if (preparing !== undefined) this.broken = true;
      throw error;
    }
    if (preparing !== undefined) this.prepared.add(preparing);
    return Array.isArray(results) ? (results[results.length - 1] as PostgresQueryResult<R>) : results;
  }

  /** The PREPARE a text needs first: `execute <session statement>(...)` on a connection that has not prepared it. */
  private preparationFor(sql: string): { name: string; prepare: string } | undefined {
    if (!sql.startsWith('execute ')) return undefined;
    const name = sql.slice(8, sql.indexOf('('));
    const prepare = sessionStatements.get(name);
    return prepare === undefined || this.prepared.has(name) ? undefined : { name, prepare };
  }

  private async sendHeldBegin(): Promise<void> {
    this.beginHeld = false;
    await this.client.query('begin');
  }

  /** A statement whose result type changed under it: re-prepared when that is safe, else the connection goes. */
  private async recover<R>(error: unknown, config: { name: string; text: string; values: unknown[] }): Promise<PostgresQueryResult<R>> {
    if ((error as { code?: unknown }).code !== featureNotSupported || !this.client.connection?.parsedStatements?.[config.name]) throw error;
    delete this.client.connection.parsedStatements[config.name];
    if (this.client._txStatus !== 'I') {
      // In a transaction the error has aborted it; the statement is still prepared on the server
      // and this client no longer knows it: the connection must not serve again.
      this.broken = true;
      throw error;
    }
    await this.client.query(`deallocate ${config.name}`);
    return (await this.client.query(config)) as unknown as PostgresQueryResult<R>;
  }

  release(): void {
    this.beginHeld = false;
    // A truthy argument makes node-postgres close the connection instead of returning it to the pool.
    this.client.release(this.broken ? new Error('named statement out of date on this connection') : undefined);
  }
}

/** The pool as Kysely's PostgresDialect wants it, every connection wrapped once in a NamingClient. */
export function namingPool(pool: PgModule.Pool, names: StatementNames = statementNames): PostgresPool {
  const wrapped = new WeakMap<PgModule.PoolClient, NamingClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let naming = wrapped.get(client);
      if (!naming) {
        naming = new NamingClient(client, names);
        wrapped.set(client, naming);
      }
      return naming;
    },
    end: () => pool.end(),
  };
}

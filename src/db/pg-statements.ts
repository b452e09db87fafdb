import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import PgModule from 'pg';
import { isServerAnswer } from './unavailable.js';

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
class StatementNames {
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
 * endpoints read of src/modules/webhooks/queries/endpoints.ts, against 10-40 µs executed). Names start with
 * `ca_s_`, apart from the protocol-level `ca_<n>` in the session's one namespace of statements.
 */
const sessionStatements = new Map<string, string>();

/** Declares a session statement; answers the text that executes it with the given SQL literals. */
export function sessionStatement(name: `ca_s_${string}`, types: readonly string[], text: string): (...literals: string[]) => string {
  if (!/^ca_s_[a-z0-9_]+$/.test(name)) throw new Error(`session statement name ${name}: lower case, digits and _ only`);
  sessionStatements.set(name, `prepare ${name} (${types.join(', ')}) as ${text}`);
  return (...literals) => `execute ${name}(${literals.join(', ')})`;
}

/**
 * A value as an SQL literal for a session statement's arguments: strings quoted by node-postgres'
 * escapeLiteral (quotes doubled; with a backslash, an E'' string with backslashes doubled, whatever
 * standard_conforming_strings says), integers as digits. Anything else, and a string with a NUL
 * character (which PostgreSQL's text cannot hold either), is refused.
 */
export function sqlLiteral(value: string | number): string {
  if (typeof value === 'string') {
    // A message is a C string on the wire: a NUL would end the text inside the literal.
    if (value.includes('\0')) throw new Error('a NUL character cannot go into an SQL literal');
    return PgModule.escapeLiteral(value);
  }
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer literal: ${value}`);
  return String(value);
}

/** Marks a held text: see holdUntilNextStatement. */
const heldMarker = '/* ca:held */ ';

/**
 * A text without parameters that a transaction's connection holds back and sends with the
 * transaction's next statement, normally its `commit`: a write whose result nobody reads (the
 * webhook outbox row) then costs no round trip of its own. It is answered at once with no rows and
 * no row count; if it fails, the statement it went with fails (a `commit` then is not run, and the
 * transaction is rolled back). Outside a transaction it is sent as usual.
 */
export const holdUntilNextStatement = (text: string): string => `${heldMarker}${text}`;

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
 * Held texts (holdUntilNextStatement) wait for the transaction's next statement and go in its
 * message when it has no parameters (the commit, for the webhook outbox row), else just before it.
 *
 * It also holds a transaction's `begin` back until the transaction's first statement, and when that
 * statement has no parameters (the simple protocol, which takes several statements in one message)
 * sends both in one round trip: the write path opens every write with such a read (the community's
 * webhook endpoints, src/write-path/write-community-data.ts), which then costs no round trip of its
 * own. Any other first statement is sent after the `begin`, as before; a transaction that sends
 * nothing sends no `begin` and no `commit` either.
 */
class NamingClient implements PostgresPoolClient {
  /** Why this connection must not serve again (closed instead of returned to the pool), if it must not. */
  private broken: string | null = null;
  /**
   * The error that showed this connection gone (lost, or silent past query_timeout): later queries
   * on it, such as Kysely's rollback, fail at once with it instead of waiting their own timeout
   * behind a query that will never be answered.
   */
  private dead: unknown = null;
  /** When it was taken from the pool (for the liveness probe), null while in the pool. */
  checkedOutAt: number | null = null;
  /**
   * What is held for the transaction's next statement: its `begin` until it has sent anything (then
   * first), and texts marked held (holdUntilNextStatement).
   */
  private readonly held: string[] = [];
  /** The session statements this connection has prepared (PREPARE outlives transactions, not connections). */
  private readonly prepared = new Set<string>();

  constructor(
    private readonly client: PgPoolClient,
    private readonly names: StatementNames,
  ) {
    // node-postgres emits 'error' on a client whose connection is lost; pg-pool listens only while
    // the client is idle, and an unheard 'error' event ends the process.
    client.on('error', (error) => {
      this.broken = 'connection lost';
      this.dead ??= error;
    });
  }

  /**
   * A connection whose query failed without an answer from the server (lost, cut, or silent past
   * query_timeout) is in an unknown state: it is closed when released, never reused.
   */
  private watched<T>(result: Promise<T>): Promise<T> {
    return result.catch((error: unknown) => {
      if (!isServerAnswer(error)) {
        this.broken = 'no answer from the server';
        this.dead ??= error;
      }
      throw error;
    });
  }

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
      // A cursor is returned at once: what is held is queued before it (node-postgres runs a
      // client's queries in order).
      if (this.held.length > 0) this.sendTogether(this.held.splice(0)).catch(() => {});
      return client.query(sqlOrCursor);
    }
    if (this.dead !== null) return Promise.reject(this.dead);
    const values = parameters as unknown[];
    if (values.length === 0) return this.watched(this.withoutParameters(sqlOrCursor));
    if (this.held.length > 0) return this.watched(this.sendTogether(this.held.splice(0))).then(() => this.query<R>(sqlOrCursor, values));
    const name = this.names.nameOf(sqlOrCursor);
    if (name === undefined) return this.watched(client.query(sqlOrCursor, values));
    const config = { name, text: sqlOrCursor, values };
    return this.watched(client.query(config).catch((error: unknown) => this.recover(error, config)));
  }

  /**
   * A text without parameters (the simple protocol): `begin` is held, and so is a text marked
   * held inside a transaction; what is held goes in the same message, before the text; so does the
   * PREPARE of each session statement in it that this connection has not prepared yet.
   */
  private withoutParameters<R>(sql: string): Promise<PostgresQueryResult<R>> {
    if (sql === 'begin' && this.held.length === 0) {
      this.held.push('begin');
      return Promise.resolve(unsent('BEGIN'));
    }
    if (sql.startsWith(heldMarker) && (this.held.length > 0 || this.client._txStatus === 'T')) {
      this.held.push(sql.slice(heldMarker.length));
      return Promise.resolve(unsent('EXECUTE'));
    }
    if (sql === 'commit' || sql === 'rollback') {
      // Nothing of the transaction reached the server (its `begin` is still held): nothing to end there either.
      if (this.held[0] === 'begin') {
        const held = this.held.splice(0);
        if (sql === 'rollback' || held.length === 1) return Promise.resolve(unsent(sql.toUpperCase()));
        return this.sendTogether<R>([...held, sql]);
      }
      // A rollback drops what is held: it would be undone anyway.
      if (sql === 'rollback') this.held.length = 0;
    }
    return this.sendTogether<R>([...this.held.splice(0), sql.startsWith(heldMarker) ? sql.slice(heldMarker.length) : sql]);
  }

  /**
   * Several statements in one message, each session statement's PREPARE before its first execute
   * where this connection has not prepared it yet; answers the last statement's result.
   */
  private async sendTogether<R>(texts: string[]): Promise<PostgresQueryResult<R>> {
    const preparations = this.preparationsFor(texts);
    const parts: string[] = [];
    texts.forEach((text, index) => {
      const preparation = preparations.find((p) => p.before === index);
      if (preparation) parts.push(preparation.prepare);
      parts.push(text);
    });
    let results: PostgresQueryResult<R>[] | PostgresQueryResult<R>;
    try {
      results = (await this.client.query(parts.join(';\n'))) as unknown as PostgresQueryResult<R>[] | PostgresQueryResult<R>;
    } catch (error) {
      // Whether a PREPARE took is unknown (it outlives a rollback, and a second one fails): this
      // connection must not serve again.
      if (preparations.length > 0) this.broken = 'session statement state unknown';
      throw error;
    }
    for (const preparation of preparations) this.prepared.add(preparation.name);
    return Array.isArray(results) ? (results[results.length - 1] as PostgresQueryResult<R>) : results;
  }

  /** The PREPAREs the texts need first: one per session statement they execute that this connection has not prepared. */
  private preparationsFor(texts: readonly string[]): { name: string; prepare: string; before: number }[] {
    const preparations: { name: string; prepare: string; before: number }[] = [];
    texts.forEach((text, index) => {
      if (!text.startsWith('execute ')) return;
      const name = text.slice(8, text.indexOf('('));
      const prepare = sessionStatements.get(name);
      if (prepare !== undefined && !this.prepared.has(name) && !preparations.some((p) => p.name === name))
        preparations.push({ name, prepare, before: index });
    });
    return preparations;
  }

  /** A statement whose result type changed under it: re-prepared when that is safe, else the connection goes. */
  private async recover<R>(error: unknown, config: { name: string; text: string; values: unknown[] }): Promise<PostgresQueryResult<R>> {
    if ((error as { code?: unknown }).code !== featureNotSupported || !this.client.connection?.parsedStatements?.[config.name]) throw error;
    delete this.client.connection.parsedStatements[config.name];
    if (this.client._txStatus !== 'I') {
      // In a transaction the error has aborted it; the statement is still prepared on the server
      // and this client no longer knows it: the connection must not serve again.
      this.broken = 'named statement out of date on this connection';
      throw error;
    }
    await this.client.query(`deallocate ${config.name}`);
    return (await this.client.query(config)) as unknown as PostgresQueryResult<R>;
  }

  release(): void {
    this.held.length = 0;
    this.checkedOutAt = null;
    // A truthy argument makes node-postgres close the connection instead of returning it to the pool
    // (a connection with a query still running is destroyed, not waited for).
    this.client.release(this.broken ? new Error(this.broken) : undefined);
  }
}

/** The pool as Kysely's PostgresDialect wants it, plus when each connection in use was taken. */
export interface NamingPool extends PostgresPool {
  /** The times (ms since the epoch) at which the connections now in use were taken from the pool. */
  checkedOutSince(): number[];
}

/** The pool as Kysely's PostgresDialect wants it, every connection wrapped once in a NamingClient. */
export function namingPool(pool: PgModule.Pool, names: StatementNames = statementNames): NamingPool {
  const wrapped = new WeakMap<PgModule.PoolClient, NamingClient>();
  const inUse = new Set<NamingClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let naming = wrapped.get(client);
      if (!naming) {
        naming = new NamingClient(client, names);
        wrapped.set(client, naming);
      }
      naming.checkedOutAt = Date.now();
      inUse.add(naming);
      return naming;
    },
    end: () => pool.end(),
    checkedOutSince: () => {
      const since: number[] = [];
      for (const naming of inUse) {
        if (naming.checkedOutAt === null) inUse.delete(naming);
        else since.push(naming.checkedOutAt);
      }
      return since;
    },
  };
}

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { holdUntilNextStatement, sessionStatement, sqlLiteral } from '../../src/db/pg-statements.js';
import { createTestDatabase, postgresSkipReason, postgresUrl, type TestDatabase } from '../support/harness.js';

// Parse messages sent by every node-postgres connection of this process: a named statement is
// parsed once per connection, an unnamed one on every run.
let parses = 0;
const connectionPrototype = (pg as unknown as { Connection: { prototype: { parse(...args: unknown[]): unknown } } }).Connection.prototype;
const originalParse = connectionPrototype.parse;
connectionPrototype.parse = function (this: unknown, ...args: unknown[]) {
  parses++;
  return originalParse.apply(this, args);
};

// Messages sent: every query handed to a node-postgres client is one round trip.
const sent: string[] = [];
const clientPrototype = pg.Client.prototype as unknown as { query(...args: unknown[]): unknown };
const originalQuery = clientPrototype.query;
clientPrototype.query = function (this: unknown, ...args: unknown[]) {
  const first = args[0];
  sent.push(typeof first === 'string' ? first : String((first as { text?: unknown })?.text ?? 'cursor'));
  return originalQuery.apply(this, args);
};

/** The messages a run sent (its failure, if any, is the test's to check). */
const sentDuring = async (run: () => Promise<unknown>): Promise<string[]> => {
  const from = sent.length;
  await run().catch(() => {});
  return sent.slice(from);
};

const names = (db: TestDatabase) => sql<{ name: string }>`select name from communities order by name`.execute(db.database.db);

const nameOf = (db: TestDatabase, id: string) =>
  sql<{ name: string }>`select name from communities where id = ${id}`.execute(db.database.db).then((r) => r.rows[0]?.name);

describe('named prepared statements on PostgreSQL', { skip: postgresSkipReason }, () => {
  let a: TestDatabase;
  let b: TestDatabase;

  before(async () => {
    a = await createTestDatabase('postgres');
    b = await createTestDatabase('postgres');
    for (const [db, name] of [
      [a, 'in schema a'],
      [b, 'in schema b'],
    ] as const) {
      await sql`insert into communities (id, name, plan, created_at) values ('same-id', ${name}, 'free', 0)`.execute(db.database.db);
    }
  });

  after(async () => {
    await a?.drop();
    await b?.drop();
  });

  it('a text run again is not parsed again on its connection', async () => {
    await nameOf(a, 'same-id');
    await nameOf(a, 'same-id');
    // Pool of 5: after at most one parse per connection, no more.
    for (let i = 0; i < 10; i++) await nameOf(a, 'same-id');
    const before = parses;
    for (let i = 0; i < 20; i++) await nameOf(a, 'same-id');
    assert.equal(parses - before, 0);
  });

  it('the same text on two schemas reads each its own rows', async () => {
    for (let i = 0; i < 6; i++) {
      assert.equal(await nameOf(a, 'same-id'), 'in schema a');
      assert.equal(await nameOf(b, 'same-id'), 'in schema b');
    }
  });

  it('a connection that changes its search_path reads the new schema through the same statement', async () => {
    const schemaOf = async (db: TestDatabase) =>
      (await sql<{ s: string }>`select current_schema() as s`.execute(db.database.db)).rows[0]?.s ?? '';
    const schemaB = await schemaOf(b);
    await a.database.db.connection().execute(async (conn) => {
      for (let i = 0; i < 3; i++)
        assert.equal(await nameOf({ ...a, database: { ...a.database, db: conn } } as TestDatabase, 'same-id'), 'in schema a');
      const parsesBefore = parses;
      await sql.raw(`set search_path = "${schemaB}"`).execute(conn);
      try {
        assert.equal(await nameOf({ ...a, database: { ...a.database, db: conn } } as TestDatabase, 'same-id'), 'in schema b');
        assert.equal(parses - parsesBefore, 0, 'PostgreSQL re-analysed the named statement itself');
      } finally {
        await sql.raw('reset search_path').execute(conn);
      }
    });
  });

  it('a statement whose result type a migration changed is prepared again (outside a transaction)', async () => {
    const db = a.database.db;
    await sql`create table scratch (id text primary key, x integer)`.execute(db);
    await sql`insert into scratch values ('k', 1)`.execute(db);
    const read = () => sql<Record<string, unknown>>`select * from scratch where id = ${'k'}`.execute(db).then((r) => r.rows[0]);
    for (let i = 0; i < 8; i++) assert.deepEqual(await read(), { id: 'k', x: 1 });
    await sql`alter table scratch add column y text default 'new'`.execute(db);
    for (let i = 0; i < 8; i++) assert.deepEqual(await read(), { id: 'k', x: 1, y: 'new' });
  });

  it('inside a transaction the error stands once, and the connection is not used again', async () => {
    const db = b.database.db;
    await sql`create table scratch (id text primary key, x integer)`.execute(db);
    await sql`insert into scratch values ('k', 1)`.execute(db);
    const read = (on: typeof db) =>
      sql<Record<string, unknown>>`select * from scratch where id = ${'k'}`.execute(on).then((r) => r.rows[0]);
    // Prepare the statement on every pooled connection.
    await Promise.all(Array.from({ length: 10 }, () => read(db)));
    await sql`alter table scratch add column y integer default 2`.execute(db);
    let failures = 0;
    for (let i = 0; i < 10; i++) {
      try {
        await db.transaction().execute((tx) => read(tx));
      } catch (error) {
        assert.equal((error as { code?: string }).code, '0A000');
        failures++;
      }
    }
    assert.ok(failures <= 5, `at most one failure per pooled connection (${failures})`);
    for (let i = 0; i < 10; i++) assert.deepEqual(await db.transaction().execute((tx) => read(tx)), { id: 'k', x: 1, y: 2 });
  });

  describe("a transaction's begin", () => {
    it('goes in one message with a first statement without parameters, which runs inside the transaction', async () => {
      const messages = await sentDuring(() =>
        a.database.db.transaction().execute(async (tx) => {
          await sql`insert into communities (id, name, plan, created_at) values ('tx-literal', 'literal', 'free', 0)`.execute(tx);
          throw new Error('undo');
        }),
      );
      assert.deepEqual(messages, [
        "begin;\ninsert into communities (id, name, plan, created_at) values ('tx-literal', 'literal', 'free', 0)",
        'rollback',
      ]);
      assert.ok(!(await names(a)).rows.some((row) => row.name === 'literal'), 'rolled back');
    });

    it('answers the first statement its own rows', async () => {
      const rows = await a.database.db.transaction().execute(async (tx) => (await sql<{ n: number }>`select 41 + 1 as n`.execute(tx)).rows);
      assert.deepEqual(rows, [{ n: 42 }]);
    });

    it('goes before a first statement with parameters, which runs inside the transaction', async () => {
      const messages = await sentDuring(() =>
        a.database.db.transaction().execute(async (tx) => {
          await sql`insert into communities (id, name, plan, created_at) values ('tx-param', ${'param'}, 'free', 0)`.execute(tx);
          throw new Error('undo');
        }),
      );
      assert.equal(messages[0], 'begin');
      assert.equal(messages.at(-1), 'rollback');
      assert.ok(!(await names(a)).rows.some((row) => row.name === 'param'), 'rolled back');
    });

    it('is not sent by a transaction that sends nothing, and neither is its commit', async () => {
      assert.deepEqual(await sentDuring(() => a.database.db.transaction().execute(async () => 'nothing')), []);
    });

    it('a failing first statement fails the transaction, and the connection serves the next one', async () => {
      await assert.rejects(
        a.database.db.transaction().execute((tx) => sql`select * from no_such_table`.execute(tx)),
        /no_such_table/,
      );
      for (let i = 0; i < 6; i++) assert.equal(await nameOf(a, 'same-id'), 'in schema a');
      const committed = await a.database.db.transaction().execute(async (tx) => {
        await sql`insert into communities (id, name, plan, created_at) values ('tx-kept', 'kept', 'free', 0)`.execute(tx);
        return true;
      });
      assert.ok(committed && (await names(a)).rows.some((row) => row.name === 'kept'));
    });
  });

  describe('a held text', () => {
    const has = async (db: TestDatabase, name: string) => (await names(db)).rows.some((row) => row.name === name);
    const insert = (id: string, name: string) =>
      `insert into communities (id, name, plan, created_at) values (${sqlLiteral(id)}, ${sqlLiteral(name)}, 'free', 0)`;
    const held = (id: string, name: string) => sql.raw(holdUntilNextStatement(insert(id, name)));

    it('goes with the commit, in one message, and is committed', async () => {
      const messages = await sentDuring(() =>
        a.database.db.transaction().execute(async (tx) => {
          await sql`select 1`.execute(tx);
          await held('held-1', 'held one').execute(tx);
        }),
      );
      assert.deepEqual(messages, ['begin;\nselect 1', `${insert('held-1', 'held one')};\ncommit`]);
      assert.ok(await has(a, 'held one'));
    });

    it('that fails fails the commit, and nothing of the transaction stays', async () => {
      await assert.rejects(
        a.database.db.transaction().execute(async (tx) => {
          await sql.raw(insert('held-2a', 'kept before')).execute(tx);
          await sql.raw(holdUntilNextStatement('insert into no_such_table values (1)')).execute(tx);
        }),
        /no_such_table/,
      );
      assert.ok(!(await has(a, 'kept before')), 'rolled back');
      for (let i = 0; i < 6; i++) assert.equal(await nameOf(a, 'same-id'), 'in schema a');
    });

    it('goes first, on its own, before a statement with parameters, which sees it', async () => {
      let seen: string | undefined;
      const messages = await sentDuring(() =>
        a.database.db.transaction().execute(async (tx) => {
          await sql`select 1`.execute(tx);
          await held('held-3', 'held three').execute(tx);
          seen = (await sql<{ name: string }>`select name from communities where id = ${'held-3'}`.execute(tx)).rows[0]?.name;
          throw new Error('undo');
        }),
      );
      assert.equal(seen, 'held three');
      assert.equal(messages[1], insert('held-3', 'held three'));
      assert.equal(messages.at(-1), 'rollback');
      assert.ok(!(await has(a, 'held three')), 'rolled back');
    });

    it('is dropped by a rollback, and by a transaction that sent nothing else', async () => {
      const messages = await sentDuring(() =>
        a.database.db.transaction().execute(async (tx) => {
          await sql`select 1`.execute(tx);
          await held('held-4', 'held four').execute(tx);
          throw new Error('undo');
        }),
      );
      assert.deepEqual(messages, ['begin;\nselect 1', 'rollback']);
      const alone = await sentDuring(() =>
        a.database.db.transaction().execute(async (tx) => {
          await held('held-5', 'held five').execute(tx);
          throw new Error('undo');
        }),
      );
      assert.deepEqual(alone, []);
      assert.ok(!(await has(a, 'held four')) && !(await has(a, 'held five')));
    });

    it('held first in a transaction goes with its begin and its commit', async () => {
      const messages = await sentDuring(() => a.database.db.transaction().execute((tx) => held('held-6', 'held six').execute(tx)));
      assert.deepEqual(messages, [`begin;\n${insert('held-6', 'held six')};\ncommit`]);
      assert.ok(await has(a, 'held six'));
    });

    it('outside a transaction is sent at once', async () => {
      await held('held-7', 'held seven').execute(a.database.db);
      assert.ok(await has(a, 'held seven'));
    });

    it('quotes its literals: quotes and backslashes arrive as written', async () => {
      const name = "O'Brien \\ 'quoted' \\' end";
      await a.database.db.transaction().execute(async (tx) => {
        await sql`select 1`.execute(tx);
        await held('held-8', name).execute(tx);
      });
      assert.equal(await nameOf(a, 'held-8'), name);
      assert.throws(() => sqlLiteral('before\0after'), /NUL/);
      assert.throws(() => sqlLiteral(1.5), /integer/);
    });
  });

  describe('a session statement', () => {
    const executeName = sessionStatement('ca_s_test_community_name', ['text'], 'select name from communities where id = $1');
    const run = (db: TestDatabase, id: string) =>
      db.database.db.transaction().execute(async (tx) => (await sql.raw<{ name: string }>(executeName(`'${id}'`)).execute(tx)).rows);

    it('is prepared once per connection, in the message that first executes it, and answers its rows', async () => {
      const from = sent.length;
      for (let i = 0; i < 12; i++) assert.deepEqual(await run(a, 'same-id'), [{ name: 'in schema a' }]);
      const messages = sent.slice(from).filter((text) => text.includes('ca_s_test_community_name'));
      const preparing = messages.filter((text) => text.includes('prepare ca_s_test_community_name'));
      // Pool of 5: at most one PREPARE per connection, in the same message as its begin and execute.
      assert.ok(preparing.length >= 1 && preparing.length <= 5, `${preparing.length} prepares`);
      for (const text of preparing)
        assert.match(text, /^begin;\nprepare ca_s_test_community_name \(text\) as .*;\nexecute ca_s_test_community_name\('same-id'\)$/s);
      assert.equal(messages.length, 12);
    });

    it('reads the schema of its own pool', async () => {
      for (let i = 0; i < 6; i++) assert.deepEqual(await run(b, 'same-id'), [{ name: 'in schema b' }]);
    });

    it('a message that fails after its PREPARE took leaves no connection that would prepare it twice', async () => {
      const plusOne = sessionStatement('ca_s_test_plus_one', ['int'], 'select $1 + 1 as n');
      const runPlusOne = (literal: string) =>
        a.database.db.transaction().execute(async (tx) => (await sql.raw<{ n: number }>(plusOne(literal)).execute(tx)).rows);
      // The PREPARE succeeds, the execute fails: whether it was prepared, the connection cannot tell.
      for (let i = 0; i < 8; i++) await assert.rejects(runPlusOne("'not a number'"), /invalid input syntax/);
      for (let i = 0; i < 8; i++) assert.deepEqual(await runPlusOne("'41'"), [{ n: 42 }]);
    });
  });

  it('the same pool keeps working for a raw pg client beside it (names are per connection)', async () => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      const result = await client.query({ name: 'ca_1', text: 'select $1::int + 1 as n', values: [1] });
      assert.equal(result.rows[0].n, 2);
      assert.equal(await nameOf(a, 'same-id'), 'in schema a');
    } finally {
      await client.end();
    }
  });
});

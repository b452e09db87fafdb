// Migrations on a PostgreSQL database that other schemas share: another schema dropped while ours
// migrates must not fail the migration (Kysely's own introspector resolved every schema's table
// names and failed with `schema "..." does not exist`; CI lost a whole suite to it).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { migrateToLatest } from '../../src/db/database.js';
import { migratorOf } from '../../src/db/schema-migrator.js';
import { createTestDatabase, postgresSkipReason, postgresUrl, type TestDatabase } from '../support/harness.js';

describe('migrations beside schemas being dropped [postgres]', { skip: postgresSkipReason }, () => {
  let testDb: TestDatabase;
  let client: pg.Client;

  before(async () => {
    testDb = await createTestDatabase('postgres');
    client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await testDb?.drop();
  });

  it('checks its own tables only: 200 migration checks while other schemas come and go all succeed', async () => {
    let stop = false;
    let churned = 0;
    // Another "deployment": schemas with tables created and dropped as fast as the server allows.
    const churn = (async () => {
      while (!stop) {
        const schema = `churn_${randomBytes(6).toString('hex')}`;
        await client.query(`create schema "${schema}"`);
        await client.query(`create table "${schema}".t (id serial primary key, v text)`);
        await client.query(`drop schema "${schema}" cascade`);
        churned++;
      }
    })();
    try {
      for (let i = 0; i < 200; i++) {
        const { error } = await (await migratorOf(testDb.database)).migrateToLatest();
        assert.equal(error, undefined, `check ${i} failed after ${churned} schemas came and went: ${String(error)}`);
      }
    } finally {
      stop = true;
      await churn;
    }
    assert.ok(churned > 0, 'the other schemas did come and go meanwhile');
    assert.deepEqual(await migrateToLatest(testDb.database), []);
  });
});

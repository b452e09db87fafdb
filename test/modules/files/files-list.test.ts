import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { fixture, multipartBody, uploadParts } from '../../support/multipart.js';

interface FileRecord {
  id: string;
  created_at: string;
  name: string;
  title: string | null;
  size: number;
  mimetype: string;
  url: string;
}

async function upload(t: TestApp, auth: { authorization: string }, file: string, name = file) {
  const { payload, headers } = multipartBody(uploadParts(fixture(file), name));
  const res = await t.request({ method: 'POST', url: '/admin/v0/files', headers: { ...auth, ...headers }, payload });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ data: FileRecord }>().data;
}

describeEachEngine('GET /admin/v0/files (extension)', (ctx) => {
  it('lists the uploads newest first, each as the upload answered it (public URL included), paged; not another community', async () => {
    const t = ctx();
    t.clock.set('2026-11-28T01:00:00.000Z');
    const community = await t.community('free');
    const first = await upload(t, community.auth, 'tiny.png', 'a photo.png');
    t.clock.advance(1000);
    const second = await upload(t, community.auth, 'tiny.pdf');
    t.clock.advance(1000);
    const third = await upload(t, community.auth, 'tiny.jpg');
    const other = await t.community('free');
    await upload(t, other.auth, 'tiny.png');

    const res = await t.request({ method: 'GET', url: '/admin/v0/files?per_page=2', headers: community.auth });
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json<{ data: { total_records: number; total_pages: number; has_next: boolean; records: FileRecord[] } }>().data;
    assert.deepEqual([data.total_records, data.total_pages, data.has_next], [3, 2, true]);
    assert.deepEqual(data.records, [third, second]);
    const last = await t.request({ method: 'GET', url: '/admin/v0/files?per_page=2&page=1', headers: community.auth });
    const [only] = last.json<{ data: { records: FileRecord[] } }>().data.records;
    assert.deepEqual(only, first);
    assert.match(only?.url ?? '', /\/files\/[0-9a-f-]{36}\/a%20photo\.png$/);
    // The URL it lists serves the file without a key.
    const download = await t.request({ method: 'GET', url: new URL(only?.url ?? '').pathname });
    assert.equal(download.statusCode, 200);
    assert.equal(download.rawPayload.length, only?.size);
  });

  it('needs files:read (files:write alone is refused); a bad parameter is 400 naming it', async () => {
    const t = ctx();
    const community = await t.community('free');
    const writer = await createApiKey(
      { database: t.database, clock: t.clock, communityId: community.id },
      { label: 'w', permissions: new Set(['files:write']) },
    );
    const refused = await t.request({ method: 'GET', url: '/admin/v0/files', headers: { authorization: `Bearer ${writer.key}` } });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.json<{ error: { message: string } }>().error.message, /files:read/);
    const bad = await t.request({ method: 'GET', url: '/admin/v0/files?per_page=0', headers: community.auth });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json<{ error: { message: string } }>().error.message, /\bper_page\b/);
  });
});

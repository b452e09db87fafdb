import assert from 'node:assert/strict';
import { it } from 'node:test';
import { runImport } from '../../../src/import/run-import.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { fixture, multipartBody, uploadParts } from '../../support/multipart.js';

type Auth = { authorization: string };

async function uploadPng(ctx: TestApp, auth: Auth): Promise<{ id: string; url: string }> {
  const { payload, headers } = multipartBody(uploadParts(fixture('tiny.png'), 'cover.png'));
  const response = await ctx.request({ method: 'POST', url: '/admin/v0/files', headers: { ...auth, ...headers }, payload });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ data: { id: string; url: string } }>().data;
}

const event = (extra: Record<string, unknown>) => ({ title: 'Launch', start_date: '2030-01-01T10:00:00Z', ...extra });
type Written = { data: { id: string; cover_image_url: string } };
type Refused = { error: { code: string; message: string } };

describeEachEngine('cover_image_file_id on calendar events', (ctx) => {
  it('makes an uploaded file the cover image of a created event, and PATCH changes or clears it', async () => {
    const { auth } = await ctx().community();
    const file = await uploadPng(ctx(), auth);
    const created = await ctx().request({
      method: 'POST',
      url: '/admin/v0/calendar_events',
      headers: auth,
      payload: event({ cover_image_file_id: file.id }),
    });
    assert.equal(created.statusCode, 201, created.body);
    const { id, cover_image_url } = created.json<Written>().data;
    assert.equal(cover_image_url, file.url);
    const read = await ctx().request({ method: 'GET', url: `/admin/v0/calendar_events/${id}`, headers: auth });
    assert.equal(read.json<Written>().data.cover_image_url, file.url);

    const other = await uploadPng(ctx(), auth);
    const patched = await ctx().request({
      method: 'PATCH',
      url: `/admin/v0/calendar_events/${id}`,
      headers: auth,
      payload: { cover_image_file_id: other.id },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json<Written>().data.cover_image_url, other.url);
    const cleared = await ctx().request({
      method: 'PATCH',
      url: `/admin/v0/calendar_events/${id}`,
      headers: auth,
      payload: { cover_image_file_id: null },
    });
    assert.equal(cleared.json<Written>().data.cover_image_url, '');
  });

  it('answers 400 naming cover_image_file_id for a file the community does not have, or beside cover_image_url', async () => {
    const { auth } = await ctx().community();
    const stranger = await ctx().community();
    const foreign = await uploadPng(ctx(), stranger.auth);
    for (const [payload, message] of [
      [event({ cover_image_file_id: crypto.randomUUID() }), /^body\.cover_image_file_id: no file "[0-9a-f-]{36}" in this community$/],
      [event({ cover_image_file_id: foreign.id }), /^body\.cover_image_file_id: no file/],
      [event({ cover_image_file_id: 'not-a-uuid' }), /^body\.cover_image_file_id: /],
      [
        event({ cover_image_file_id: foreign.id, cover_image_url: 'https://example.com/a.png' }),
        /^body\.cover_image_file_id: cannot be sent together/,
      ],
    ] as const) {
      const response = await ctx().request({ method: 'POST', url: '/admin/v0/calendar_events', headers: auth, payload });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json<Refused>().error.code, 'validation_failed');
      assert.match(response.json<Refused>().error.message, message);
    }
  });

  it('is taken by the import too, naming the record whose file is missing', async () => {
    const { id: communityId, auth } = await ctx().community();
    const file = await uploadPng(ctx(), auth);
    const record = {
      id: 'CoverImport1',
      status: 'published',
      start_date: '2030-01-01T10:00:00Z',
      title: 'Imported',
      cover_image_file_id: file.id,
    };
    await runImport(
      { database: ctx().database, clock: ctx().clock, communityId, publicBaseUrl: 'https://files.example.org' },
      { calendar_events: [record] },
    );
    const read = await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events/CoverImport1', headers: auth });
    assert.equal(read.json<Written>().data.cover_image_url, `https://files.example.org/files/${file.id}/cover.png`);
    await assert.rejects(
      runImport(
        { database: ctx().database, clock: ctx().clock, communityId },
        { calendar_events: [{ ...record, cover_image_file_id: crypto.randomUUID() }] },
      ),
      /calendar_events\[0\]\.cover_image_file_id: no file/,
    );
  });
});

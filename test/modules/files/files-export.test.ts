import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { dataOf, exportText, firstDifference, importText } from '../../export/round-trip-support.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { fixture, multipartBody, uploadParts } from '../../support/multipart.js';

type Auth = { authorization: string };

async function upload(ctx: TestApp, auth: Auth, bytes: Buffer, filename: string, description?: string) {
  const { payload, headers } = multipartBody(uploadParts(bytes, filename, description === undefined ? {} : { description }));
  const response = await ctx.request({ method: 'POST', url: '/admin/v0/files', headers: { ...auth, ...headers }, payload });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ data: { id: string; url: string; mimetype: string } }>().data;
}

describeEachEngine('export and import of files', (ctx) => {
  it('exports files with their bytes; importing the export elsewhere and exporting again gives the same bytes', async () => {
    const source = await ctx().community('enterprise', 'Source');
    // 256 KiB chunks and a size that is no multiple of 3: the streamed base64 must join exactly.
    const big = randomBytes(2 * 256 * 1024 + 7);
    const png = await upload(ctx(), source.auth, fixture('tiny.png'), 'tiny.png', 'A small logo');
    const data = await upload(ctx(), source.auth, big, 'data.bin');
    const created = await ctx().request({
      method: 'POST',
      url: '/admin/v0/calendar_events',
      headers: source.auth,
      payload: { title: 'With a cover', start_date: '2030-01-01T10:00:00Z', cover_image_file_id: png.id },
    });
    assert.equal(created.statusCode, 201);
    const exported = await exportText(ctx().database, source.id);
    const files = (JSON.parse(exported) as { files: Record<string, unknown>[] }).files;
    assert.deepEqual(
      files.map((f) => Object.keys(f)),
      files.map(() => ['id', 'name', 'title', 'size', 'sha256', 'created_at', 'content_base64']),
    );
    const exportedBig = files.find((f) => f.id === data.id);
    assert.deepEqual(Buffer.from(String(exportedBig?.content_base64), 'base64'), big);
    assert.equal(exportedBig?.sha256, createHash('sha256').update(big).digest('hex'));

    const copy = await ctx().community('enterprise', 'Copy');
    ctx().clock.advance(86_400_000);
    const counts = await importText(ctx().database, ctx().clock, copy.id, exported);
    assert.equal(counts.files, 2);
    const again = await exportText(ctx().database, copy.id);
    assert.ok(dataOf(again) === dataOf(exported), `the second export differs at ${firstDifference(exported, again)}`);
    // The copy's event shows the same cover URL, and that URL serves the same bytes.
    const download = await ctx().request({ method: 'GET', url: new URL(data.url).pathname });
    assert.deepEqual(download.rawPayload, big);
  });

  it("refuses an import that would give an id of another community's file to other bytes", async () => {
    const owner = await ctx().community('enterprise', 'Owner');
    const file = await upload(ctx(), owner.auth, fixture('tiny.jpg'), 'tiny.jpg');
    const exported = JSON.parse(await exportText(ctx().database, owner.id)) as { files: Record<string, unknown>[] };
    const forged = Buffer.from(fixture('bare.svg'));
    const record = {
      ...exported.files[0],
      size: forged.length,
      sha256: createHash('sha256').update(forged).digest('hex'),
      content_base64: forged.toString('base64'),
    };
    const other = await ctx().community('enterprise', 'Other');
    await assert.rejects(
      importText(ctx().database, ctx().clock, other.id, JSON.stringify({ files: [record] })),
      new RegExp(`files\\[0\\]\\.id: "${file.id}" is another community's file`),
    );
    const download = await ctx().request({ method: 'GET', url: new URL(file.url).pathname });
    assert.deepEqual(download.rawPayload, fixture('tiny.jpg'));
    await assert.rejects(
      importText(ctx().database, ctx().clock, other.id, JSON.stringify({ files: [{ ...record, size: 3 }] })),
      /files\[0\]\.size: says 3 bytes but content_base64 holds/,
    );
  });
});

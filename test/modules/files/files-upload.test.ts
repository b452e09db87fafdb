import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { fixture, multipartBody, uploadParts } from '../../support/multipart.js';

type Uploaded = {
  success: true;
  data: { id: string; created_at: string; name: string; title: string | null; size: number; mimetype: string; url: string };
};

async function upload(
  ctx: TestApp,
  auth: { authorization: string },
  bytes: Buffer,
  filename: string,
  options: { size?: string; description?: string } = {},
) {
  const { payload, headers } = multipartBody(uploadParts(bytes, filename, options));
  return ctx.request({ method: 'POST', url: '/admin/v0/files', headers: { ...auth, ...headers }, payload });
}

describeEachEngine('POST /admin/v0/files', (ctx) => {
  const cases = [
    { file: 'tiny.png', mimetype: 'image/png' },
    { file: 'tiny.jpg', mimetype: 'image/jpeg' },
    { file: 'tiny.pdf', mimetype: 'application/pdf' },
    { file: 'prolog.svg', mimetype: 'image/svg+xml' },
    { file: 'bare.svg', mimetype: 'image/svg+xml' },
  ];
  for (const { file, mimetype } of cases) {
    it(`stores ${file} and answers the type detected from its bytes (${mimetype}), not the client's`, async () => {
      const { auth } = await ctx().community();
      const bytes = fixture(file);
      const response = await upload(ctx(), auth, bytes, file, { description: `Alt text of ${file}` });
      assert.equal(response.statusCode, 201, response.body);
      const { data } = response.json<Uploaded>();
      assert.equal(data.mimetype, mimetype);
      assert.equal(data.name, file);
      assert.equal(data.title, `Alt text of ${file}`);
      assert.equal(data.size, bytes.length);
      assert.match(data.id, /^[0-9a-f-]{36}$/);
      assert.match(data.created_at, /^\d{4}-\d\d-\d\dT/);
      const path = new URL(data.url).pathname;
      assert.equal(path, `/files/${data.id}/${file}`);
      assert.equal(response.headers.location, data.url);
      const download = await ctx().request({ method: 'GET', url: path });
      assert.equal(download.statusCode, 200);
      assert.deepEqual(download.rawPayload, bytes);
      assert.equal(download.headers['content-type'], mimetype);
    });
  }

  it('answers title null without a description, and a name outside ASCII in its URL percent-encoded', async () => {
    const { auth } = await ctx().community();
    const response = await upload(ctx(), auth, fixture('tiny.png'), 'été 2025.png');
    assert.equal(response.statusCode, 201, response.body);
    const { data } = response.json<Uploaded>();
    assert.equal(data.title, null);
    assert.ok(data.url.endsWith(`/files/${data.id}/${encodeURIComponent('été 2025.png')}`), data.url);
    const download = await ctx().request({ method: 'GET', url: new URL(data.url).pathname });
    assert.equal(download.statusCode, 200);
  });

  it('stores several multi-chunk uploads sent at once, each whole, with a refused one among them', async () => {
    const { auth } = await ctx().community();
    const files = [0, 1, 2].map(() => randomBytes(2 * 256 * 1024 + 77));
    const [a, b, refused, c] = await Promise.all([
      upload(ctx(), auth, files[0] as Buffer, 'a.bin'),
      upload(ctx(), auth, files[1] as Buffer, 'b.bin'),
      upload(ctx(), auth, randomBytes(300 * 1024), 'lying.bin', { size: '5' }),
      upload(ctx(), auth, files[2] as Buffer, 'c.bin'),
    ]);
    assert.equal(refused.statusCode, 400, refused.body);
    for (const [index, response] of [a, b, c].entries()) {
      assert.equal(response.statusCode, 201, response.body);
      const download = await ctx().request({ method: 'GET', url: new URL(response.json<Uploaded>().data.url).pathname });
      assert.deepEqual(download.rawPayload, files[index]);
    }
  });

  it('refuses a size that is not the number of bytes received, and keeps nothing of it', async () => {
    const { auth } = await ctx().community();
    const bytes = fixture('tiny.png');
    const response = await upload(ctx(), auth, bytes, 'tiny.png', { size: String(bytes.length + 1) });
    assert.equal(response.statusCode, 400);
    const body = response.json<{ error: { code: string; message: string } }>();
    assert.equal(body.error.code, 'validation_failed');
    assert.match(body.error.message, /^body\.size: says \d+ bytes but the file has \d+ bytes/);
    const staged = await ctx().database.db.selectFrom('file_upload_chunks').select('upload_id').execute();
    assert.deepEqual(staged, []);
  });

  it('names the field that is missing or wrong', async () => {
    const { auth } = await ctx().community();
    const png = fixture('tiny.png');
    const send = async (parts: Parameters<typeof multipartBody>[0]) => {
      const { payload, headers } = multipartBody(parts);
      const response = await ctx().request({ method: 'POST', url: '/admin/v0/files', headers: { ...auth, ...headers }, payload });
      assert.equal(response.statusCode, 400, response.body);
      return response.json<{ error: { message: string } }>().error.message;
    };
    assert.match(await send(uploadParts(png, 'tiny.png').filter((p) => p.name !== 'file')), /^body\.file: is required/);
    assert.match(await send(uploadParts(png, 'tiny.png').filter((p) => p.name !== 'filename')), /^body\.filename: is required/);
    assert.match(await send(uploadParts(png, 'tiny.png').filter((p) => p.name !== 'size')), /^body\.size: is required/);
    assert.match(await send(uploadParts(png, 'noextension')), /^body\.filename: must end with an extension/);
    assert.match(await send(uploadParts(png, '../up.png')), /^body\.filename: must not contain slashes/);
    assert.match(await send(uploadParts(png, `${'a'.repeat(252)}.png`)), /^body\.filename: must be 1 to 255 characters/);
    assert.match(await send(uploadParts(png, 'tiny.png', { size: '0' })), /^body\.size: must be a whole number of bytes, at least 1/);
    assert.match(
      await send([...uploadParts(png, 'tiny.png'), { name: 'colour', value: 'red' }]),
      /^body\.colour: is not a part of an upload/,
    );
    assert.match(
      await send([...uploadParts(png, 'tiny.png'), { name: 'file', value: png, filename: 'again.png' }]),
      /^body\.file: only one file per upload/,
    );
  });

  it('answers 400 in the envelope to a body that is not valid multipart/form-data', async () => {
    const { auth } = await ctx().community();
    for (const [type, payload] of [
      ['multipart/form-data', '{"filename":"a.png"}'],
      ['multipart/form-data; boundary=x', '{"filename":"a.png"}'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc'],
    ]) {
      const response = await ctx().request({ method: 'POST', url: '/admin/v0/files', headers: { ...auth, 'content-type': type }, payload });
      assert.equal(response.statusCode, 400, `${type} ${payload}: ${response.body}`);
      assert.match(response.json<{ error: { message: string } }>().error.message, /^body: is not valid multipart\/form-data/);
    }
    assert.deepEqual(await ctx().database.db.selectFrom('file_upload_chunks').select('upload_id').execute(), []);
  });

  it('is documented in the OpenAPI document with its multipart parts, permission and answer', async () => {
    const document = (await ctx().request({ method: 'GET', url: '/admin/v0/openapi.json' })).json<{
      paths: Record<string, Record<string, Record<string, unknown>>>;
    }>();
    const operation = document.paths['/admin/v0/files']?.post as {
      requestBody: { content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }> };
      responses: Record<string, unknown>;
      'x-permission': string;
    };
    const form = operation.requestBody.content['multipart/form-data']?.schema;
    assert.deepEqual(Object.keys(form?.properties ?? {}), ['file', 'filename', 'size', 'description']);
    assert.deepEqual(form?.required, ['file', 'filename', 'size']);
    assert.equal(operation['x-permission'], 'files:write');
    assert.ok(operation.responses['201']);
  });

  it('needs a key with files:write, and multipart/form-data', async () => {
    const response = await upload(ctx(), { authorization: 'Bearer nope-nope-nope-nope' }, fixture('tiny.png'), 'tiny.png');
    assert.equal(response.statusCode, 401);
    const { id, auth } = await ctx().community();
    const json = await ctx().request({ method: 'POST', url: '/admin/v0/files', headers: auth, payload: { filename: 'a.png' } });
    assert.equal(json.statusCode, 415);
    const scoped = await createApiKey(
      { ...ctx(), communityId: id },
      { label: 'events only', permissions: new Set(['calendar_events:write'] as const) },
    );
    const refused = await upload(ctx(), { authorization: `Bearer ${scoped.key}` }, fixture('tiny.png'), 'tiny.png');
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json<{ error: { code: string } }>().error.code, 'insufficient_scope');
  });

  it('replays the answer of the same upload under the same Idempotency-Key, and refuses another upload under it', async () => {
    const { auth } = await ctx().community();
    const key = crypto.randomUUID();
    const png = fixture('tiny.png');
    const send = async (bytes: Buffer) => {
      const { payload, headers } = multipartBody(uploadParts(bytes, 'tiny.png'));
      return ctx().request({ method: 'POST', url: '/admin/v0/files', headers: { ...auth, ...headers, 'idempotency-key': key }, payload });
    };
    const first = await send(png);
    assert.equal(first.statusCode, 201);
    const again = await send(png);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['x-idempotent-replayed'], 'true');
    assert.equal(again.json<Uploaded>().data.id, first.json<Uploaded>().data.id);
    const other = Buffer.from(png);
    other[other.length - 1] = (other[other.length - 1] as number) ^ 1;
    assert.equal((await send(other)).statusCode, 422);
    const files = await ctx().database.db.selectFrom('files').select('id').where('name', '=', 'tiny.png').execute();
    assert.equal(files.filter((f) => f.id === first.json<Uploaded>().data.id).length, 1);
    assert.deepEqual(await ctx().database.db.selectFrom('file_upload_chunks').select('upload_id').execute(), []);
  });
});

describeEachEngine(
  'POST /admin/v0/files over FILES_MAX_MB',
  (ctx) => {
    it('answers 413 in the envelope for a file over the limit, and keeps nothing of it', async () => {
      const { auth } = await ctx().community();
      const big = Buffer.alloc(1024 * 1024 + 1, 7);
      const response = await upload(ctx(), auth, big, 'big.bin');
      assert.equal(response.statusCode, 413, response.body);
      assert.equal(response.json<{ error: { code: string } }>().error.code, 'payload_too_large');
      assert.deepEqual(await ctx().database.db.selectFrom('file_upload_chunks').select('upload_id').execute(), []);
      assert.deepEqual(await ctx().database.db.selectFrom('files').select('id').execute(), []);
    });

    it('takes a file of exactly the limit', async () => {
      const { auth } = await ctx().community();
      const exact = Buffer.alloc(1024 * 1024, 9);
      const response = await upload(ctx(), auth, exact, 'exact.bin');
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json<Uploaded>().data.mimetype, 'application/octet-stream');
      const download = await ctx().request({ method: 'GET', url: new URL(response.json<Uploaded>().data.url).pathname });
      assert.deepEqual(download.rawPayload, exact);
    });
  },
  { env: { FILES_MAX_MB: '1' } },
);

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, it } from 'node:test';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { fixture, multipartBody, uploadParts } from '../../support/multipart.js';

/** Uploads through the API and answers the download path of the file. */
async function uploaded(ctx: TestApp, bytes: Buffer, filename: string): Promise<string> {
  const { auth } = await ctx.community();
  const { payload, headers } = multipartBody(uploadParts(bytes, filename));
  const response = await ctx.request({ method: 'POST', url: '/admin/v0/files', headers: { ...auth, ...headers }, payload });
  assert.equal(response.statusCode, 201, response.body);
  return new URL(response.json<{ data: { url: string } }>().data.url).pathname;
}

describeEachEngine('GET /files/{id}/{name}', (ctx) => {
  // Three chunks of 256 KiB and a bit: ranges across chunk boundaries read the right rows.
  const big = randomBytes(3 * 256 * 1024 + 1000);
  let bigPath = '';
  before(async () => {
    bigPath = await uploaded(ctx(), big, 'data.bin');
  });

  it('serves the bytes without a key, with their type, length, a strong ETag and an immutable cache lifetime', async () => {
    const path = await uploaded(ctx(), fixture('tiny.png'), 'tiny.png');
    const response = await ctx().request({ method: 'GET', url: path });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.rawPayload, fixture('tiny.png'));
    assert.equal(response.headers['content-type'], 'image/png');
    assert.equal(response.headers['content-length'], String(fixture('tiny.png').length));
    assert.match(String(response.headers.etag), /^"[0-9a-f]{64}"$/);
    assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.equal(response.headers['accept-ranges'], 'bytes');
    assert.equal(response.headers['content-disposition'], 'inline; filename="tiny.png"');
    assert.equal(response.headers['content-security-policy'], undefined);
    const head = await ctx().request({ method: 'HEAD', url: path });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-length'], String(fixture('tiny.png').length));
    assert.equal(head.rawPayload.length, 0);
  });

  for (const file of ['prolog.svg', 'bare.svg']) {
    it(`serves ${file} (which a browser would run) as a sandboxed attachment`, async () => {
      const response = await ctx().request({ method: 'GET', url: await uploaded(ctx(), fixture(file), file) });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'image/svg+xml');
      assert.equal(response.headers['content-disposition'], `attachment; filename="${file}"`);
      assert.equal(response.headers['content-security-policy'], 'sandbox');
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
    });
  }

  it('serves an HTML page uploaded as a .png as an attachment of unknown type, never as HTML', async () => {
    const html = Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>');
    const response = await ctx().request({ method: 'GET', url: await uploaded(ctx(), html, 'photo.png') });
    assert.equal(response.headers['content-type'], 'application/octet-stream');
    assert.equal(response.headers['content-disposition'], 'attachment; filename="photo.png"');
    assert.equal(response.headers['content-security-policy'], 'sandbox');
  });

  it('answers a byte range across chunk boundaries with 206 and Content-Range', async () => {
    const start = 256 * 1024 - 10;
    const end = 2 * 256 * 1024 + 5;
    const response = await ctx().request({ method: 'GET', url: bigPath, headers: { range: `bytes=${start}-${end}` } });
    assert.equal(response.statusCode, 206);
    assert.equal(response.headers['content-range'], `bytes ${start}-${end}/${big.length}`);
    assert.equal(response.headers['content-length'], String(end - start + 1));
    assert.deepEqual(response.rawPayload, big.subarray(start, end + 1));
    const suffix = await ctx().request({ method: 'GET', url: bigPath, headers: { range: 'bytes=-100' } });
    assert.equal(suffix.statusCode, 206);
    assert.deepEqual(suffix.rawPayload, big.subarray(big.length - 100));
    const whole = await ctx().request({ method: 'GET', url: bigPath });
    assert.deepEqual(whole.rawPayload, big);
  });

  it('answers ranges that start and end inside a chunk, across the pieces PostgreSQL sends it in (32 KiB)', async () => {
    const piece = 32 * 1024;
    for (const [start, end] of [
      [piece - 10, piece + 10],
      [100_000, 100_099],
      [3 * piece, 4 * piece - 1],
      [256 * 1024 + piece - 1, 256 * 1024 + 2 * piece],
      [big.length - piece - 3, big.length - 1],
    ] as const) {
      const response = await ctx().request({ method: 'GET', url: bigPath, headers: { range: `bytes=${start}-${end}` } });
      assert.equal(response.statusCode, 206, `${start}-${end}`);
      assert.deepEqual(response.rawPayload, big.subarray(start, end + 1), `${start}-${end}`);
    }
  });

  it('answers 416 in the envelope for a range outside the file', async () => {
    const response = await ctx().request({ method: 'GET', url: bigPath, headers: { range: `bytes=${big.length}-` } });
    assert.equal(response.statusCode, 416);
    assert.equal(response.headers['content-range'], `bytes */${big.length}`);
    assert.equal(response.json<{ error: { code: string } }>().error.code, 'range_not_satisfiable');
  });

  it('answers 304 to If-None-Match with its ETag, and the whole file when If-Range names another', async () => {
    const first = await ctx().request({ method: 'GET', url: bigPath, headers: { range: 'bytes=0-0' } });
    const etag = String(first.headers.etag);
    const notModified = await ctx().request({ method: 'GET', url: bigPath, headers: { 'if-none-match': etag } });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.rawPayload.length, 0);
    const stale = await ctx().request({ method: 'GET', url: bigPath, headers: { range: 'bytes=0-9', 'if-range': '"other"' } });
    assert.equal(stale.statusCode, 200);
    assert.equal(stale.rawPayload.length, big.length);
    const fresh = await ctx().request({ method: 'GET', url: bigPath, headers: { range: 'bytes=0-9', 'if-range': etag } });
    assert.equal(fresh.statusCode, 206);
  });

  it('answers 404 in the envelope for an unknown id, or a known id under another name', async () => {
    const [, , id] = bigPath.split('/');
    for (const url of [`/files/${crypto.randomUUID()}/data.bin`, `/files/${id}/other.bin`, '/files/x/data.bin']) {
      const response = await ctx().request({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      assert.equal(response.json<{ error: { code: string } }>().error.code, 'not_found');
      assert.equal(response.headers['cache-control'], 'no-store');
    }
  });
});

describeEachEngine(
  'file downloads have their own per-address budget',
  (ctx) => {
    it('neither spends nor is refused by the budget of requests without a valid key', async () => {
      const path = await uploaded(ctx(), fixture('tiny.png'), 'tiny.png');
      const guess = () =>
        ctx().request({ method: 'GET', url: '/admin/v0/feeds', headers: { authorization: 'Bearer guess-guess-guess-guess' } });
      // The upload's key, seen for the first time, cost the address one of its three unauthenticated requests.
      // Twenty images on a page: all served, and the key-guessing budget is untouched.
      for (let i = 0; i < 20; i++) assert.equal((await ctx().request({ method: 'GET', url: path })).statusCode, 200, `download ${i}`);
      assert.equal((await guess()).statusCode, 401);
      assert.equal((await guess()).statusCode, 401);
      assert.equal((await guess()).statusCode, 429);
      // The unauthenticated budget is spent; downloads go on until their own is.
      for (let i = 20; i < 25; i++) assert.equal((await ctx().request({ method: 'GET', url: path })).statusCode, 200, `download ${i}`);
      const refused = await ctx().request({ method: 'GET', url: path });
      assert.equal(refused.statusCode, 429);
      assert.match(refused.json<{ error: { message: string } }>().error.message, /downloads/);
      assert.ok(refused.headers['retry-after']);
    });
  },
  { env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '3', RATE_LIMIT_DOWNLOADS_PER_SECOND: '25' } },
);

// Uploaded files across real server processes: stored by one, served by another; a body over
// FILES_MAX_MB refused before the client has sent it all.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { createTestDatabase, engines, type TestDatabase } from '../support/harness.js';
import { fixture } from '../support/multipart.js';
import { ensureBuilt, type ServerProcess, startServerProcess } from './server-processes.js';

/** Sends a request head and then body bytes until the server answers; returns the answer's head and how much was sent. */
async function sendUntilAnswered(
  port: number,
  head: string,
  total: number,
  frame: (piece: Buffer) => Buffer = (piece) => piece,
): Promise<{ answer: string; sent: number }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let answer = '';
  const answered = new Promise<void>((resolve) => {
    socket.on('data', (data) => {
      answer += data.toString('latin1');
      if (answer.includes('\r\n\r\n') && answer.includes('}')) resolve();
    });
    socket.on('close', () => resolve());
  });
  socket.on('error', () => {});
  socket.write(head);
  let sent = 0;
  let done = false;
  void answered.then(() => {
    done = true;
  });
  const piece = Buffer.alloc(64 * 1024, 0x61);
  while (!done && sent < total) {
    const flushed = socket.write(frame(piece));
    sent += piece.length;
    if (!flushed) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), answered]);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await answered;
  socket.destroy();
  return { answer, sent };
}

for (const { engine, skip } of engines) {
  describe(`files across server processes [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    let servers: ServerProcess[] = [];
    let auth = '';

    before(async () => {
      ensureBuilt();
      testDb = await createTestDatabase(engine);
      const community = await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Files', plan: 'free' });
      auth = `Bearer ${(await createApiKey({ database: testDb.database, clock: systemClock, communityId: community.id }, { label: 'files' })).key}`;
      const env = { ...testDb.env, FILES_MAX_MB: '1' };
      servers = await Promise.all([startServerProcess(env), startServerProcess({ ...env, PUBLIC_BASE_URL: 'https://cdn.example.org/' })]);
    });

    after(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await testDb?.drop();
    });

    const [a, b] = [() => servers[0] as ServerProcess, () => servers[1] as ServerProcess];

    const upload = async (server: ServerProcess, bytes: Buffer, filename: string) => {
      const form = new FormData();
      form.set('filename', filename);
      form.set('size', String(bytes.length));
      form.set('file', new Blob([bytes], { type: 'text/plain' }), filename);
      const response = await fetch(`${server.baseUrl}/admin/v0/files`, { method: 'POST', headers: { authorization: auth }, body: form });
      assert.equal(response.status, 201, await response.clone().text());
      return ((await response.json()) as { data: { id: string; url: string } }).data;
    };

    it('serves from one instance a file another stored, under the URL of its listening address or PUBLIC_BASE_URL', async () => {
      const png = fixture('tiny.png');
      const file = await upload(a(), png, 'tiny.png');
      assert.equal(file.url, `${a().baseUrl}/files/${file.id}/tiny.png`);
      const fromB = await fetch(`${b().baseUrl}/files/${file.id}/tiny.png`);
      assert.equal(fromB.status, 200);
      assert.equal(fromB.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await fromB.arrayBuffer()), png);
      const viaB = await upload(b(), png, 'again.png');
      assert.equal(viaB.url, `https://cdn.example.org/files/${viaB.id}/again.png`);
      const range = await fetch(`${a().baseUrl}/files/${viaB.id}/again.png`, { headers: { range: 'bytes=1-3' } });
      assert.equal(range.status, 206);
      assert.deepEqual(Buffer.from(await range.arrayBuffer()), png.subarray(1, 4));
    });

    it('answers 413 to a declared length over FILES_MAX_MB before the body is sent', async () => {
      const port = Number(new URL(a().baseUrl).port);
      const total = 20 * 1024 * 1024;
      const head = [
        'POST /admin/v0/files HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: ${auth}`,
        'Content-Type: multipart/form-data; boundary=xyz',
        `Content-Length: ${total}`,
        '',
        '',
      ].join('\r\n');
      const { answer, sent } = await sendUntilAnswered(port, head, total);
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.match(answer, /"code":"payload_too_large"/);
      assert.ok(sent < total / 2, `answered after ${sent} of ${total} bytes`);
    });

    it('answers 413 to a chunked upload once the file passes FILES_MAX_MB, without reading the rest', async () => {
      const port = Number(new URL(a().baseUrl).port);
      const head = [
        'POST /admin/v0/files HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: ${auth}`,
        'Content-Type: multipart/form-data; boundary=xyz',
        'Transfer-Encoding: chunked',
        '',
        '',
      ].join('\r\n');
      const partHead =
        '--xyz\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n';
      const chunk = (bytes: Buffer) => Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
      const total = 20 * 1024 * 1024;
      const { answer, sent } = await sendUntilAnswered(port, head + chunk(Buffer.from(partHead)).toString('latin1'), total, chunk);
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.match(answer, /"code":"payload_too_large"/);
      assert.ok(sent < total / 2, `answered after ${sent} of ${total} bytes`);
    });
  });
}

import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { CapturedResponse } from './ceiling-server.js';
import type { RequestSpec } from './scenarios.js';

/** Headers that belong to one connection or one moment, not to the answer: the ceiling server sets its own. */
const perConnection = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** Sends the scenario's request once and keeps the exact answer (status, headers as sent, body). */
export function captureResponse(baseUrl: string, spec: RequestSpec): Promise<CapturedResponse> {
  const id = randomUUID();
  const fill = (text: string) => (spec.fresh ? text.replaceAll('{uuid}', id) : text);
  const headers = Object.fromEntries(Object.entries(spec.headers).map(([name, value]) => [name, fill(value)]));
  const body = spec.body === undefined ? undefined : fill(spec.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${spec.path}`, { method: spec.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const raw = res.rawHeaders;
        const pairs: [string, string][] = [];
        for (let i = 0; i + 1 < raw.length; i += 2) {
          const name = raw[i] as string;
          if (!perConnection.has(name.toLowerCase())) pairs.push([name, raw[i + 1] as string]);
        }
        resolve({ status: res.statusCode ?? 0, headers: pairs, bodyBase64: Buffer.concat(chunks).toString('base64') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The total_records of a captured list answer. */
export function totalRecordsOf(captured: CapturedResponse): number {
  const parsed = JSON.parse(Buffer.from(captured.bodyBase64, 'base64').toString('utf8')) as { data?: { total_records?: number } };
  const total = parsed.data?.total_records;
  if (typeof total !== 'number') throw new Error('the captured answer has no data.total_records');
  return total;
}

// What the search tests share: GET /admin/v0/search through the app, and the ids it answers.
import assert from 'node:assert/strict';
import type { Auth, ListPage } from '../../support/feed-fixtures.js';
import type { TestApp } from '../../support/harness.js';

/** GET /admin/v0/search with `q` and extra query parameters: status and parsed body. */
export async function search(
  app: TestApp,
  auth: Auth,
  q: string | undefined,
  extra: Record<string, string | number> = {},
): Promise<{ status: number; body: { success: boolean; data: ListPage; error?: { code: string; message: string } } }> {
  const params = new URLSearchParams();
  if (q !== undefined) params.set('q', q);
  for (const [key, value] of Object.entries(extra)) params.set(key, String(value));
  const res = await app.request({ method: 'GET', url: `/admin/v0/search?${params}`, headers: auth });
  return { status: res.statusCode, body: res.json() };
}

/** The ids a search finds, in rank order (first page of 50), asserting a 200 with an exact total. */
export async function found(app: TestApp, auth: Auth, q: string, extra: Record<string, string | number> = {}): Promise<string[]> {
  const { status, body } = await search(app, auth, q, { per_page: 50, ...extra });
  assert.equal(status, 200, `${q}: ${JSON.stringify(body)}`);
  const ids = body.data.records.map((record) => String(record.id));
  assert.equal(body.data.total_records, ids.length, `${q}: total`);
  return ids;
}

import { runImport } from '../../../src/import/run-import.js';
import type { TestApp } from '../../support/harness.js';

/** A deterministic UUID v4 for fixture number n (profiles, feeds). */
export const uuid = (n: number, kind = 0): string => `00000000-0000-4${String(kind).padStart(3, '0')}-8000-${String(n).padStart(12, '0')}`;

/** A 12-character event id for fixture number n (sorts like n). */
export const eventId = (n: number): string => `ev${String(n).padStart(10, '0')}`;

/** A profile record of the import file (with a fixed created_at, so responses are predictable). */
export function profile(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    profile_id: uuid(n, 1),
    created_at: '2026-01-01T00:00:00Z',
    email: `person${n}@example.org`,
    first_name: `First${n}`,
    last_name: `Last${n}`,
    chat_user_id: `U${String(n).padStart(8, '0')}`,
    ...extra,
  };
}

/** A feed record of the import file. */
export function feed(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: uuid(n, 2),
    label: `Feed ${n}`,
    slug: `feed-${n}`,
    chat_channel_id: `C${String(n).padStart(8, '0')}`,
    chat_channel_name: `feed-${n}`,
    ...extra,
  };
}

export const hour = 60 * 60 * 1000;
export const day = 24 * hour;

/** An event record of the import file starting at `startIso` (as UTC), lasting `durationMs` (null: no end). */
export function event(
  n: number,
  startIso: string,
  durationMs: number | null = hour,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const start = Date.parse(startIso);
  return {
    id: eventId(n),
    title: `Event ${n}`,
    status: 'published',
    start_date: new Date(start).toISOString(),
    ...(durationMs === null ? {} : { end_date: new Date(start + durationMs).toISOString() }),
    ...extra,
  };
}

/** Loads a document into a community through the real import. */
export function importInto(app: TestApp, communityId: string, document: Record<string, unknown>) {
  return runImport({ database: app.database, clock: app.clock, communityId }, document);
}

export interface Envelope<T> {
  success: boolean;
  data: T;
  error?: { code: string; message: string; hint: string };
}

export interface PageData {
  page: number;
  per_page: number;
  count: number;
  total_records: number;
  total_pages: number;
  has_next: boolean;
  records: { id: string; start_date: string; [key: string]: unknown }[];
}

/** GET /calendar_events with the given query string (without '?'). */
export async function listEvents(app: TestApp, auth: { authorization: string }, query = '') {
  const res = await app.request({ method: 'GET', url: `/admin/v0/calendar_events${query ? `?${query}` : ''}`, headers: auth });
  return { status: res.statusCode, body: res.json<Envelope<PageData>>() };
}

/** Ids of a list response's records, in order. */
export const idsOf = (body: Envelope<PageData>): string[] => body.data.records.map((r) => r.id);

// The round trip: export a community, import the file into an empty community, export that one.
import assert from 'node:assert/strict';
import type { Database } from '../../src/db/database.js';
import { exportCommunity } from '../../src/export/export-community.js';
import { runImport } from '../../src/import/run-import.js';
import type { Clock } from '../../src/shared/clock.js';
import type { TestApp } from '../support/harness.js';

type Json = Record<string, unknown>;

/** The export of a community as text (what the CLI writes to stdout). */
export async function exportText(database: Database, communityId: string): Promise<string> {
  const parts: string[] = [];
  await exportCommunity(database, communityId, { write: async (text) => void parts.push(text) });
  return parts.join('');
}

/** Imports an export's text into a community, as `import FILE` does. */
export async function importText(database: Database, clock: Clock, communityId: string, text: string): Promise<Record<string, number>> {
  return runImport({ database, clock, communityId }, JSON.parse(text));
}

/**
 * Every answer of the API that shows the community's data: each event (list pages of every
 * status and time, and the single event), each feed, every posts list. Two communities that
 * hold the same data answer these the same, byte for byte.
 */
export async function apiAnswers(app: TestApp, auth: { authorization: string }): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  const get = async (url: string): Promise<Json> => {
    const response = await app.request({ method: 'GET', url, headers: auth });
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    answers.set(url, response.body);
    return response.json();
  };
  const pages = async (base: string): Promise<Json[]> => {
    const records: Json[] = [];
    for (let page = 0; ; page++) {
      const data = (await get(`${base}${base.includes('?') ? '&' : '?'}per_page=50&page=${page}`)).data as {
        records: Json[];
        has_next: boolean;
      };
      records.push(...data.records);
      if (!data.has_next) return records;
    }
  };
  const feedIds = new Set<string>();
  for (const status of ['published', 'draft', 'needs_approval']) {
    for (const time of ['upcoming', 'past']) {
      for (const event of await pages(
        `/admin/v0/calendar_events?status=${status}&time_filter=${time}&reference_date=2026-11-21T12:00:00Z`,
      )) {
        await get(`/admin/v0/calendar_events/${event.id}`);
        for (const target of event.published_to as { feed_id: string | null }[]) if (target.feed_id) feedIds.add(target.feed_id);
      }
    }
  }
  for (const post of await pages('/admin/v0/feeds/home/posts?sort=oldest')) feedIds.add(String(post.feed_id));
  for (const feed of [...feedIds].sort()) {
    await get(`/admin/v0/feeds/${feed}`);
    await pages(`/admin/v0/feeds/${feed}/posts?sort=most-recent-activity`);
  }
  return answers;
}

/** Asserts two maps of answers are the same, naming the first URL that differs. */
export function assertSameAnswers(before: Map<string, string>, after: Map<string, string>): void {
  assert.deepEqual([...after.keys()], [...before.keys()], 'the same requests');
  for (const [url, body] of before) assert.equal(after.get(url), body, `answer of ${url}`);
}

/** The first line at which two texts differ, for a readable failure. */
export function firstDifference(a: string, b: string): string {
  const left = a.split('\n');
  const right = b.split('\n');
  const i = left.findIndex((line, k) => line !== right[k]);
  return i < 0 ? `lengths ${left.length} and ${right.length}` : `line ${i + 1}:\n- ${left[i]}\n+ ${right[i]}`;
}

/**
 * An export's data without its activity log. The log is the file's last section and grows by one
 * record with every import (its own `import.completed`), so a round trip compares the data byte for
 * byte and the log with assertLogCarried.
 */
export function dataOf(text: string): string {
  const at = text.indexOf('\n"activities": [');
  return at < 0 ? text : text.slice(0, at);
}

/** The log of `before` is carried unchanged at the start of the log of `after` (which adds its own records after it). */
export function assertLogCarried(before: string, after: string): void {
  const log = (text: string) => (JSON.parse(text) as { activities?: unknown[] }).activities ?? [];
  const earlier = log(before);
  assert.ok(earlier.length > 0, 'the export holds a log');
  assert.deepEqual(log(after).slice(0, earlier.length), earlier);
}

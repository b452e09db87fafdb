// What the activity log's tests read back: GET /admin/v0/activities through the app.
import assert from 'node:assert/strict';
import type { ActivityRecord } from '../../../src/modules/activities/activities.records.js';
import type { TestApp } from '../../support/harness.js';

/** A record as GET /activities answers it (the fields these tests look at). */
export type Activity = Pick<ActivityRecord, 'action' | 'actor' | 'target' | 'context' | 'changes' | 'metadata'>;

export type Auth = { authorization: string };

/** The community's records (of `action`, exact or `x.*`, when given), newest first, the first hundred. */
export async function listActivities(t: TestApp, auth: Auth, action?: string): Promise<Activity[]> {
  const query = action ? `&action=${encodeURIComponent(action)}` : '';
  const res = await t.request({ method: 'GET', url: `/admin/v0/activities?per_page=100${query}`, headers: auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ data: { records: Activity[] } }>().data.records;
}

/** The one record of `found` (fails when there are none or several). */
export function onlyOne(found: readonly Activity[], action: string): Activity {
  assert.equal(found.length, 1, `one ${action}: ${JSON.stringify(found)}`);
  return found[0] as Activity;
}

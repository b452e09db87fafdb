import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { type ActivityRecord, canonicalJson, canonicalText, chainHash } from '../../../src/modules/activities/activities.records.js';

const record: Omit<ActivityRecord, 'hash'> = {
  id: '7c1e0d6a-0000-4000-8000-000000000001',
  occurred_at: '2026-11-21T12:00:00.123456+00:00',
  action: 'calendar_event.updated',
  actor: { type: 'api_key', id: 'k1', label: 'Ops "main" key\n' },
  target: { type: 'calendar_event', id: 'evt1', name: 'Café ☕' },
  context: { request_id: 'r1', ip: null, user_agent: 'curl/8' },
  changes: { title: ['A', 'B'], tags: [[{ z: 1, a: 2 }], []] },
  metadata: { b: { y: null, x: true }, a: 1 },
};

describe('the canonical bytes of a record', () => {
  it('spelled field by field, equal the generic canonical JSON (sorted keys, no spaces), for every shape', () => {
    for (const variant of [
      record,
      { ...record, context: null, changes: null, metadata: null },
      { ...record, actor: { type: 'cli' as const, id: null, label: null }, target: { type: 'community', id: null, name: null } },
    ]) {
      assert.equal(canonicalText(variant), canonicalJson(variant));
    }
    assert.equal(canonicalJson({ b: 1, a: [{ d: 1, c: 'x' }] }), '{"a":[{"c":"x","d":1}],"b":1}');
  });

  it('the hash is SHA-256 over the previous hash bytes then the canonical text', () => {
    const text = canonicalText(record);
    assert.equal(chainHash('', text), createHash('sha256').update(text).digest('hex'));
    const prev = 'ab'.repeat(32);
    assert.equal(chainHash(prev, text), createHash('sha256').update(Buffer.from(prev, 'hex')).update(text).digest('hex'));
  });
});

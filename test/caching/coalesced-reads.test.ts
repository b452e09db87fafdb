import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoalescedReads } from '../../src/caching/coalesced-reads.js';

// The data version of cached answers on PostgreSQL is read through CoalescedReads. What keeps
// answers exact across instances is that a caller never gets a read sent before it asked: these
// tests hold each read open and check which callers it answers.

/** A read source whose reads the test settles by hand; each read returns the value current when it was sent. */
function manualSource() {
  let value = 0;
  const pending: { key: string; settle: () => void; fail: (error: Error) => void }[] = [];
  const readNow = (key: string) =>
    new Promise<number>((resolve, reject) => {
      const seen = value;
      pending.push({ key, settle: () => resolve(seen), fail: reject });
    });
  return {
    reads: new CoalescedReads(readNow),
    pending,
    write: () => value++,
    settleOldest: async () => {
      const read = pending.shift();
      assert.ok(read, 'a read is in flight');
      read.settle();
      // Let the callbacks of the settled read (and the start of the next one) run.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('coalesced reads', () => {
  it('never answers a caller with a read sent before it asked', async () => {
    const source = manualSource();
    const first = source.reads.read('c');
    source.write(); // committed after the first read was sent, before the next caller asks
    const second = source.reads.read('c');
    const third = source.reads.read('c');
    assert.equal(source.pending.length, 1, 'the later callers wait: no second read while one is in flight');
    await source.settleOldest();
    assert.equal(await first, 0);
    assert.equal(source.pending.length, 1, 'one read started for both waiting callers');
    await source.settleOldest();
    assert.equal(await second, 1);
    assert.equal(await third, 1);
  });

  it('shares one read among every caller that asked while the previous one was in flight', async () => {
    const source = manualSource();
    void source.reads.read('c');
    const waiting = Array.from({ length: 20 }, () => source.reads.read('c'));
    await source.settleOldest();
    await source.settleOldest();
    assert.deepEqual(await Promise.all(waiting), Array(20).fill(0));
    assert.equal(source.pending.length, 0, 'two reads for 21 callers');
  });

  it('reads each key on its own', async () => {
    const source = manualSource();
    void source.reads.read('a');
    void source.reads.read('b');
    assert.deepEqual(
      source.pending.map((read) => read.key),
      ['a', 'b'],
    );
  });

  it('starts afresh once nothing is in flight, and a failed read fails only its own callers', async () => {
    const source = manualSource();
    const failing = source.reads.read('c');
    const next = source.reads.read('c');
    source.write();
    source.pending.shift()?.fail(new Error('connection lost'));
    await assert.rejects(failing, /connection lost/);
    await new Promise((resolve) => setImmediate(resolve));
    await source.settleOldest();
    assert.equal(await next, 1, 'the waiting caller gets the next read, not the failure');
    const later = source.reads.read('c');
    assert.equal(source.pending.length, 1);
    await source.settleOldest();
    assert.equal(await later, 1);
  });
});

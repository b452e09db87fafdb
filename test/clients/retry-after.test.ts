import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryAfterMs } from '../../clients/typescript/src/index.js';

describe('the typescript client reads Retry-After in both of its forms', () => {
  const now = Date.parse('2026-11-26T08:00:00Z');

  it('as delta-seconds', () => {
    assert.equal(retryAfterMs('0', now), 0);
    assert.equal(retryAfterMs(' 3 ', now), 3000);
  });

  it('as an HTTP date, never negative', () => {
    assert.equal(retryAfterMs('Thu, 26 Nov 2026 08:00:05 GMT', now), 5000);
    assert.equal(retryAfterMs('Thu, 26 Nov 2026 07:59:00 GMT', now), 0);
  });

  it('as nothing when absent or unreadable (the client then backs off on its own)', () => {
    assert.equal(retryAfterMs(null, now), undefined);
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs('-1', now), undefined);
  });
});

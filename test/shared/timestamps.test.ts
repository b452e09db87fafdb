import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type EpochMicros, epochMicros, epochMillis, microsFromMillis } from '../../src/shared/time.js';
import {
  formatIsoMillis,
  formatJsonTimestamp,
  formatTextTimestamp,
  maxInstant,
  minInstant,
  parseTimestamp,
} from '../../src/shared/timestamps.js';

const us = (iso: string, micros = 0): EpochMicros => epochMicros(Date.parse(iso) * 1000 + micros);

describe('timestamps: parse', () => {
  it('keeps every fraction digit up to the microsecond, in every accepted form', () => {
    assert.equal(parseTimestamp('2025-03-11T13:06:35.552988+00:00'), us('2025-03-11T13:06:35.552Z', 988));
    assert.equal(parseTimestamp('2025-05-14 19:16:38.630803+00'), us('2025-05-14T19:16:38.630Z', 803));
    assert.equal(parseTimestamp('2025-05-14T19:16:38.630803Z'), us('2025-05-14T19:16:38.630Z', 803));
    assert.equal(parseTimestamp('2025-05-14t19:16:38.6z'), us('2025-05-14T19:16:38.600Z'));
    assert.equal(parseTimestamp('2026-11-21T18:00:00Z'), us('2026-11-21T18:00:00Z'));
  });

  it('applies offsets of every spelling (±hh, ±hhmm, ±hh:mm)', () => {
    const expected = us('2025-05-14T17:16:38.000Z', 5);
    assert.equal(parseTimestamp('2025-05-14 19:16:38.000005+02'), expected);
    assert.equal(parseTimestamp('2025-05-14T19:16:38.000005+0200'), expected);
    assert.equal(parseTimestamp('2025-05-14T19:16:38.000005+02:00'), expected);
    assert.equal(parseTimestamp('2025-05-14T14:46:38.000005-02:30'), expected);
  });

  it('rounds digits beyond the microsecond half up, as PostgreSQL does, carrying into the second', () => {
    assert.equal(parseTimestamp('2025-05-14T19:16:38.1234564Z'), us('2025-05-14T19:16:38.123Z', 456));
    assert.equal(parseTimestamp('2025-05-14T19:16:38.1234565Z'), us('2025-05-14T19:16:38.123Z', 457));
    assert.equal(parseTimestamp('2025-05-14T19:16:38.9999999Z'), us('2025-05-14T19:16:39Z'));
  });

  it('refuses what names no instant', () => {
    for (const text of [
      '2025-05-14',
      '2025-05-14T19:16:38',
      '2025-05-14 19:16:38.5',
      '2025-02-30T00:00:00Z',
      '2025-13-01T00:00:00Z',
      '2025-05-14T24:00:00Z',
      '2016-12-31T23:59:60Z',
      '2025-05-14T19:16:38+24:00',
      '2025-05-14T19:16:38 +00',
      ' 2025-05-14T19:16:38Z',
      '1699-12-31T23:59:59Z',
      '2251-01-01T00:00:00Z',
      'tomorrow',
    ]) {
      assert.equal(parseTimestamp(text), undefined, text);
    }
  });

  it('accepts the whole range of years 1700 to 2250 exactly', () => {
    assert.equal(parseTimestamp('1700-01-01T00:00:00Z'), minInstant);
    assert.equal(parseTimestamp('2250-12-31T23:59:59.999999Z'), maxInstant);
    assert.ok(Number.isSafeInteger(minInstant) && Number.isSafeInteger(maxInstant));
  });
});

describe('timestamps: spell', () => {
  it("spells PostgreSQL's JSON form, dropping trailing zeros of the fraction and a zero fraction", () => {
    assert.equal(formatJsonTimestamp(us('2025-03-11T13:06:35.552Z', 988)), '2025-03-11T13:06:35.552988+00:00');
    assert.equal(formatJsonTimestamp(us('2025-04-01T11:53:07.781Z', 40)), '2025-04-01T11:53:07.78104+00:00');
    assert.equal(formatJsonTimestamp(us('2025-03-20T18:00:00Z')), '2025-03-20T18:00:00+00:00');
    assert.equal(formatJsonTimestamp(us('2025-03-20T18:00:00Z', 1)), '2025-03-20T18:00:00.000001+00:00');
  });

  it("spells PostgreSQL's text form", () => {
    assert.equal(formatTextTimestamp(us('2025-05-14T19:16:38.630Z', 803)), '2025-05-14 19:16:38.630803+00');
    assert.equal(formatTextTimestamp(us('2025-05-14T19:16:38.600Z')), '2025-05-14 19:16:38.6+00');
    assert.equal(formatTextTimestamp(epochMicros(0)), '1970-01-01 00:00:00+00');
  });

  it('spells instants before 1970 with a positive fraction', () => {
    assert.equal(formatJsonTimestamp(us('1969-12-31T23:59:59.999Z', 999)), '1969-12-31T23:59:59.999999+00:00');
    assert.equal(formatTextTimestamp(epochMicros(-1)), '1969-12-31 23:59:59.999999+00');
  });

  it('reads back what it spells, both forms', () => {
    for (const instant of [
      minInstant,
      maxInstant,
      epochMicros(0),
      epochMicros(-1),
      us('2025-05-14T19:16:38.630Z', 803),
      microsFromMillis(epochMillis(Date.UTC(2026, 10, 21))),
    ]) {
      assert.equal(parseTimestamp(formatJsonTimestamp(instant)), instant);
      assert.equal(parseTimestamp(formatTextTimestamp(instant)), instant);
    }
  });
});

describe('timestamps: format, against Date#toISOString', () => {
  const reference = (us: number): string => {
    const seconds = Math.floor(us / 1_000_000);
    const micros = us - seconds * 1_000_000;
    const fraction = micros === 0 ? '' : `.${String(micros).padStart(6, '0').replace(/0+$/, '')}`;
    return `${new Date(seconds * 1000).toISOString().slice(0, 19)}${fraction}+00:00`;
  };

  it('spells every instant of the accepted range as the reference does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: minInstant, max: maxInstant }),
        (instant) => formatJsonTimestamp(epochMicros(instant)) === reference(instant),
      ),
      { numRuns: 20_000 },
    );
  });

  it('spells the edges: the range, leap days, century years, the epoch and whole seconds', () => {
    for (const iso of [
      '1700-01-01T00:00:00Z',
      '1700-02-28T23:59:59Z',
      '1700-03-01T00:00:00Z',
      '1800-12-31T23:59:59Z',
      '1900-03-01T00:00:00Z',
      '1969-12-31T23:59:59Z',
      '1970-01-01T00:00:00Z',
      '2000-02-29T12:00:00Z',
      '2024-02-29T00:00:00Z',
      '2100-02-28T23:59:59Z',
      '2100-03-01T00:00:00Z',
      '2250-12-31T23:59:59Z',
    ]) {
      for (const micros of [0, 1, 10, 120, 500_000, 999_999]) {
        const instant = us(iso, micros);
        assert.equal(formatJsonTimestamp(instant), reference(instant), iso);
      }
    }
    assert.equal(formatJsonTimestamp(maxInstant), '2250-12-31T23:59:59.999999+00:00');
    assert.equal(formatTextTimestamp(us('1969-12-31T23:59:59Z', 120)), '1969-12-31 23:59:59.00012+00');
  });
});

describe('timestamps: ISO milliseconds, against Date#toISOString', () => {
  it('spells every millisecond instant as Date#toISOString does, in the range and outside it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Math.floor(minInstant / 1000) - 10_000_000, max: Math.floor(maxInstant / 1000) + 10_000_000 }),
        (ms) => {
          return formatIsoMillis(epochMillis(ms)) === new Date(ms).toISOString();
        },
      ),
      { numRuns: 20_000 },
    );
    for (const ms of [0, -1, 1, 999, 1000, Date.UTC(2000, 1, 29, 23, 59, 59, 9), 8.64e15, -8.64e15])
      assert.equal(formatIsoMillis(epochMillis(ms)), new Date(ms).toISOString(), String(ms));
  });
});

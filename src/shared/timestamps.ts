/*
 * Instants of community data are epoch microseconds: what PostgreSQL's timestamptz keeps, and what
 * the hosted product answers. Every such instant below 2^53 µs (years 1685 to 2255) is an exact
 * integer in a JavaScript number, in SQLite's integer and in PostgreSQL's int8 (parsed to number),
 * so both engines store, sort and compare them alike, with no rounding anywhere.
 */

import { type EpochMicros, type EpochMillis, epochMicros } from './time.js';

export { type EpochMicros, millisFromMicros } from './time.js';

const microsPerMilli = 1000;
const microsPerSecond = 1_000_000;

/** Earliest and latest instants accepted: whole years inside the exactly representable range. */
export const minInstant: EpochMicros = epochMicros(Date.UTC(1700, 0, 1) * microsPerMilli);
export const maxInstant: EpochMicros = epochMicros(Date.UTC(2251, 0, 1) * microsPerMilli - 1);

/**
 * An ISO 8601 / RFC 3339 date-time, or PostgreSQL's text form: `T` or a space between date and
 * time, up to any number of fraction digits (rounded to the microsecond, as PostgreSQL does), and
 * a zone `Z`, `±hh`, `±hhmm` or `±hh:mm`.
 */
const timestampPattern = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/** Microseconds of a fraction's digits, rounded half up (so `.0000005` is 1 µs). */
function fractionMicros(digits: string | undefined): number {
  if (digits === undefined) return 0;
  const micros = Number(digits.slice(0, 6).padEnd(6, '0'));
  const next = digits.charCodeAt(6);
  return next >= 53 /* '5' */ ? micros + 1 : micros;
}

/** What an import or query timestamp must be, for error messages. */
export const timestampRule =
  'must be a date-time with a zone, years 1700 to 2250, such as 2026-11-21T18:00:00Z or 2025-05-14 19:16:38.630803+00';

/**
 * The instant a timestamp text names, in epoch microseconds, or undefined when it names none
 * (malformed, no zone, a day the month does not have, a leap second, outside years 1700-2250).
 */
export function parseTimestamp(text: string): EpochMicros | undefined {
  const match = timestampPattern.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zulu, sign, offsetHours, offsetMinutes] = match;
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const h = Number(hour);
  const mi = Number(minute);
  const s = Number(second);
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  if (date.getUTCDate() !== d) return undefined;
  date.setUTCHours(h, mi, s, 0);
  let offsetMs = 0;
  if (zulu === undefined) {
    const oh = Number(offsetHours);
    const om = Number(offsetMinutes ?? '0');
    if (oh > 23 || om > 59) return undefined;
    offsetMs = (sign === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  const micros = (date.getTime() - offsetMs) * microsPerMilli + fractionMicros(fraction);
  return micros < minInstant || micros > maxInstant ? undefined : epochMicros(micros);
}

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/**
 * `YYYY-MM-DD` of a day counted from 1970-01-01 (Howard Hinnant's civil_from_days, integers only).
 * Every record's instants are formatted on every render: a `Date` and its toISOString per field were
 * a sixth of a calendar event's rendering (docs/performance.md, 2026-11-24 evening).
 */
function civilDate(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${two(month)}-${two(day)}`;
}

/** `YYYY-MM-DDTHH:MM:SS` and the fraction (`.552988`, trailing zeros dropped, '' when zero). */
function split(us: EpochMicros): { seconds: string; fraction: string } {
  const wholeSeconds = Math.floor(us / microsPerSecond);
  const micros = us - wholeSeconds * microsPerSecond;
  const days = Math.floor(wholeSeconds / 86_400);
  const secondOfDay = wholeSeconds - days * 86_400;
  const hour = Math.floor(secondOfDay / 3600);
  const minute = Math.floor((secondOfDay - hour * 3600) / 60);
  const second = secondOfDay - hour * 3600 - minute * 60;
  const seconds = `${civilDate(days)}T${two(hour)}:${two(minute)}:${two(second)}`;
  if (micros === 0) return { seconds, fraction: '' };
  let digits = 6;
  for (let rest = micros; rest % 10 === 0; rest /= 10) digits--;
  return { seconds, fraction: `.${String(micros).padStart(6, '0').slice(0, digits)}` };
}

/**
 * `Date#toISOString` of an epoch-millisecond instant (`2026-11-24T16:57:33.120Z`), without the
 * Date: a webhook payload's timestamp is formatted on every emitting write.
 */
export function formatIsoMillis(ms: EpochMillis): string {
  const us = epochMicros(ms * microsPerMilli);
  if (!Number.isSafeInteger(us) || us < minInstant || us > maxInstant) return new Date(ms).toISOString();
  const { seconds } = split(us);
  const millis = ms - Math.floor(ms / 1000) * 1000;
  return `${seconds}.${millis < 10 ? `00${millis}` : millis < 100 ? `0${millis}` : millis}Z`;
}

/**
 * PostgreSQL's JSON spelling of a timestamptz in UTC (events, profiles, feeds):
 * `2025-03-11T13:06:35.552988+00:00`, `2025-04-01T11:53:07.78104+00:00`, `2025-03-20T18:00:00+00:00`.
 */
export function formatJsonTimestamp(us: EpochMicros): string {
  const { seconds, fraction } = split(us);
  return `${seconds}${fraction}+00:00`;
}

/** PostgreSQL's text spelling of a timestamptz in UTC (post records and their author): `2025-05-14 19:16:38.630803+00`. */
export function formatTextTimestamp(us: EpochMicros): string {
  const { seconds, fraction } = split(us);
  return `${seconds.slice(0, 10)} ${seconds.slice(11)}${fraction}+00`;
}

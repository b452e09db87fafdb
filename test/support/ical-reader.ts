import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/*
 * An independent reader of iCalendar text for the tests: Debian's python3-icalendar, run through
 * python3 (test/support/ical-reader.py). Debian's interpreter first: a python3 earlier on PATH
 * (pyenv) may not see Debian's packages.
 */

const script = fileURLToPath(new URL('./ical-reader.py', import.meta.url));

export interface ReadEvent {
  uid: string;
  sequence: number | null;
  dtstamp: string | null;
  last_modified: string | null;
  created: string | null;
  dtstart: string | null;
  dtend: string | null;
  summary: string | null;
  description: string | null;
  location: string | null;
  url: string | null;
  status: string | null;
  categories: string[];
  alarms: { action: string; trigger_seconds: number; description: string | null }[];
  organizer: string | null;
  attendee: string | null;
}

export interface ReadCalendar {
  version: string | null;
  prodid: string | null;
  name: string | null;
  x_wr_calname: string | null;
  refresh_interval: string | null;
  x_published_ttl: string | null;
  events: ReadEvent[];
}

const candidates = ['/usr/bin/python3', 'python3'];

/** The python3 that can import icalendar, or undefined. */
function findPython(): string | undefined {
  for (const python of candidates) {
    const probe = spawnSync(python, ['-c', 'import icalendar'], { stdio: 'ignore' });
    if (probe.status === 0) return python;
  }
  return undefined;
}

const python = findPython();

/** Why the reader's tests are skipped, or false when python3-icalendar is there. */
export const icalReaderSkipReason: string | false = python
  ? false
  : 'python3-icalendar is missing: apt-get install -y python3-icalendar (Debian), then run this file again';

/** The calendar as python3-icalendar reads it. */
export function readIcs(ics: string | Buffer): ReadCalendar {
  if (!python) throw new Error('python3-icalendar is not installed');
  const run = spawnSync(python, [script], { input: ics, maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`ical-reader.py failed: ${run.stderr.toString()}`);
  return JSON.parse(run.stdout.toString()) as ReadCalendar;
}

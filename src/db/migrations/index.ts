import type { Migration } from 'kysely';
import * as initial from './001-initial.js';
import * as calendarEvents from './002-calendar-events.js';
import * as eventListIndex from './003-event-list-index.js';

/** Every migration, in order. Listed explicitly so builds never depend on scanning a folder. */
export const migrations: Record<string, Migration> = {
  '001-initial': initial,
  '002-calendar-events': calendarEvents,
  '003-event-list-index': eventListIndex,
};

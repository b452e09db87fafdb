import { activitiesImportSection } from '../modules/activities/activities.import.js';
import { awardsImportSection } from '../modules/awards/awards.import.js';
import { calendarEventsImportSection } from '../modules/calendar-events/calendar-events.import.js';
import { feedsImportSection } from '../modules/feeds/feeds.import.js';
import { filesImportSection } from '../modules/files/files.import.js';
import { groupsImportSection } from '../modules/groups/groups.import.js';
import { membersImportSection } from '../modules/members/members.import.js';
import { postsImportSection } from '../modules/posts/posts.import.js';
import { profilesImportSection } from '../modules/profiles/profiles.import.js';
import type { ImportSection } from './import-section.js';

/**
 * Every section of the import file, in the order they are applied: a section may refer only to
 * sections before it (posts to feeds and profiles, events to profiles and feeds, ...).
 */
export const importSections: ImportSection<unknown>[] = [
  // files: first, as calendar_events may name one as cover image (cover_image_file_id).
  filesImportSection as ImportSection<unknown>,
  profilesImportSection as ImportSection<unknown>,
  membersImportSection as ImportSection<unknown>,
  groupsImportSection as ImportSection<unknown>,
  // feeds and posts: after profiles, members and groups; before calendar_events, which refer to feeds.
  feedsImportSection as ImportSection<unknown>,
  postsImportSection as ImportSection<unknown>,
  calendarEventsImportSection as ImportSection<unknown>,
  // awards: after profiles, whose members hold them.
  awardsImportSection as ImportSection<unknown>,
  // activities: last, as the log refers to everything; loaded unchanged (docs/activity.md).
  activitiesImportSection as ImportSection<unknown>,
];

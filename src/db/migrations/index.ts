import type { Migration } from 'kysely';
import * as initial from './001-initial.js';
import * as calendarEvents from './002-calendar-events.js';
import * as eventListIndex from './003-event-list-index.js';
import * as keysApiKeyScopes from './004-keys-api-key-scopes.js';
import * as webhooksTables from './005-webhooks-tables.js';
import * as slackChatSync from './006-slack-chat-sync.js';
import * as fidelityMicroseconds from './007-fidelity-microseconds.js';
import * as fidelityEventNulls from './008-fidelity-event-nulls.js';
import * as fidelityPostNulls from './009-fidelity-post-nulls.js';
import * as webhookOutbox from './010-webhook-outbox.js';
import * as eventSlugIndex from './011-event-slug-index.js';
import * as eventTagOrder from './012-event-tag-order.js';
import * as postSearch from './013-post-search.js';
import * as files from './014-files.js';
import * as awardsAndWebhookAttempts from './015-awards-and-webhook-attempts.js';
import * as searchWordPairs from './016-search-word-pairs.js';
import * as postSearchNoAuthorIndex from './017-post-search-no-author-index.js';
import * as postSearchFtsAutomerge from './018-post-search-fts-automerge.js';
import * as memberList from './019-member-list.js';
import * as consoleLinks from './020-console-links.js';
import * as chatSyncJobs from './021-chat-sync-jobs.js';
import * as calendarFeeds from './022-calendar-feeds.js';
import * as activityLog from './023-activity-log.js';
import * as memberSearchIndex from './024-member-search-index.js';

/** Every migration, in order. Listed explicitly so builds never depend on scanning a folder. */
export const migrations: Record<string, Migration> = {
  '001-initial': initial,
  '002-calendar-events': calendarEvents,
  '003-event-list-index': eventListIndex,
  '004-keys-api-key-scopes': keysApiKeyScopes,
  '005-webhooks-tables': webhooksTables,
  '006-slack-chat-sync': slackChatSync,
  '007-fidelity-microseconds': fidelityMicroseconds,
  '008-fidelity-event-nulls': fidelityEventNulls,
  '009-fidelity-post-nulls': fidelityPostNulls,
  '010-webhook-outbox': webhookOutbox,
  '011-event-slug-index': eventSlugIndex,
  '012-event-tag-order': eventTagOrder,
  '013-post-search': postSearch,
  '014-files': files,
  '015-awards-and-webhook-attempts': awardsAndWebhookAttempts,
  '016-search-word-pairs': searchWordPairs,
  '017-post-search-no-author-index': postSearchNoAuthorIndex,
  '018-post-search-fts-automerge': postSearchFtsAutomerge,
  '019-member-list': memberList,
  '020-console-links': consoleLinks,
  '021-chat-sync-jobs': chatSyncJobs,
  '022-calendar-feeds': calendarFeeds,
  '023-activity-log': activityLog,
  '024-member-search-index': memberSearchIndex,
};

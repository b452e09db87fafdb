import type { Generated } from 'kysely';
import type { Plan } from '../shared/plans.js';
import type { KeyKind } from '../shared/principal.js';
import type { DurationMs, EpochMicros, EpochMillis } from '../shared/time.js';
import type { WebhookEventType } from '../shared/webhook-event-types.js';

/*
 * Table shapes shared by both engines. Instants of community data are epoch microseconds (bigint,
 * exact below 2^53: src/shared/timestamps.ts) so that they sort and compare the same way on SQLite
 * and PostgreSQL and keep what PostgreSQL's timestamptz keeps; the operational tables api_keys and
 * idempotency_keys count epoch milliseconds, the clock's unit. Booleans are 0/1 integers for the
 * same reason. `doc` columns hold the JSON text of the stored (non-derived) fields of a record, so a
 * response can splice them without parsing; anything the API filters or sorts on is a column.
 */

export type Flag = 0 | 1;

export interface CommunitiesTable {
  id: string;
  name: string;
  /** Written only as a checked Plan (src/modules/communities/communities.commands.ts). */
  plan: Plan;
  created_at: EpochMicros;
  /** Bumped in the same transaction as any write to events (or posts): the key of cached counts. */
  events_version: Generated<number>;
  posts_version: Generated<number>;
  /** Bumped in the same transaction as any write to members: the key of the member list's cached totals. */
  members_version: Generated<number>;
}

export interface ApiKeysTable {
  id: string;
  community_id: string;
  label: string;
  key_hash: string;
  created_at: EpochMillis;
  last_used_at: EpochMillis | null;
  revoked_at: EpochMillis | null;
  /** `all`, or the held permissions comma-separated (src/shared/permissions.ts). */
  permissions: Generated<string>;
  expires_at: EpochMillis | null;
  /** The hash a rotation replaced, valid until previous_valid_until. */
  previous_key_hash: string | null;
  previous_valid_until: EpochMillis | null;
  /** `key` (made by `key create`) or `console` (a console session's, made by signing in: docs/console.md). */
  kind: Generated<KeyKind>;
}

/** One-time console sign-in links (docs/console.md): the token's SHA-256 only. */
export interface ConsoleLinksTable {
  token_hash: string;
  community_id: string;
  created_at: EpochMillis;
  expires_at: EpochMillis;
  /** Set once, by the exchange that used the link. */
  used_at: EpochMillis | null;
}

export interface ChatConnectionsTable {
  community_id: string;
  token: string;
  team_id: string | null;
  connected_at: EpochMicros;
}

export interface ProfilesTable {
  community_id: string;
  id: string;
  email_norm: string;
  chat_user_id: string | null;
  /** JSON of the full profile as the API shows it (profile_id ... chat_image_original). */
  doc: string;
  /** 1 when the chat sync saw the user deleted from the workspace (the profile is kept). */
  chat_deleted: Generated<Flag>;
  created_at: EpochMicros;
  updated_at: EpochMicros;
}

export interface MembersTable {
  community_id: string;
  id: string;
  email: string;
  email_norm: string;
  full_name: string;
  preferred_name: string;
  avatar_url_original: string | null;
  chat_profile_id: string | null;
  state: 'active' | 'deactivated' | 'forgotten';
  created_at: EpochMicros;
  updated_at: EpochMicros;
  /** full_name folded (case, accents): the list's sort by name (written by members.queries.ts with every name). */
  name_sort: Generated<string>;
  /** full name, preferred name and email folded, one a line: where the list's `q` is found. */
  search_text: Generated<string>;
}

/**
 * SQLite only (migration 024): a member's entry in the substring index of the list's `q`, written by
 * members.queries.ts with every member write. `doc_id` is the member's rowid in the FTS5 table
 * `member_search_fts` (search_text under the trigram tokenizer; not typed here); the other columns are
 * what the list filters and orders the matches by. PostgreSQL indexes members.search_text itself (pg_trgm).
 */
export interface MemberSearchTable {
  doc_id: Generated<number>;
  community_id: string;
  member_id: string;
  state: MembersTable['state'];
  name_sort: string;
  created_at: EpochMicros;
}

export interface ChatInvitationsTable {
  community_id: string;
  id: string;
  email_norm: string;
  profile_id: string | null;
  member_id: string | null;
  status: 'pending' | 'accepted' | 'cancelled' | 'failed';
  channel_ids: string;
  created_at: EpochMicros;
  updated_at: EpochMicros;
}

export interface GroupsTable {
  community_id: string;
  id: string;
  name: string;
  created_at: EpochMicros;
  updated_at: EpochMicros;
}

export interface GroupMembersTable {
  community_id: string;
  group_id: string;
  profile_id: string;
  created_at: EpochMicros;
}

export interface FeedsTable {
  community_id: string;
  id: string;
  chat_channel_id: string | null;
  is_archived: Flag;
  is_unlisted: Flag;
  /** JSON of every stored feed field of the API record. */
  doc: string;
  created_at: EpochMicros;
  updated_at: EpochMicros;
}

export interface PostsTable {
  community_id: string;
  id: string;
  feed_id: string;
  author_profile_id: string | null;
  /** 1 when the post's feed is neither archived nor unlisted: the Home feed filter, kept in step by feed writes. */
  in_home: Flag;
  content_created_at: EpochMicros;
  latest_activity_at: EpochMicros;
  /** JSON of the stored post fields (title, slug, chat_message, bodies, counts ...). */
  doc: string;
  /** JSON of the mentions extracted from the message blocks, resolved to references at read time. */
  mentions: string;
  created_at: EpochMicros;
  updated_at: EpochMicros;
}

export interface CalendarEventsTable {
  community_id: string;
  id: string;
  status: 'draft' | 'needs_approval' | 'published';
  start_at: EpochMicros;
  end_at: EpochMicros | null;
  /** end_at, or start_at when the event has no end: the instant that splits upcoming from past. */
  ends_at: EpochMicros;
  publish_to_site: Flag;
  is_unlisted: Flag;
  attendees_count: Generated<number>;
  /** JSON of the stored event fields (title, blocks, tags, published_to, reminders_config ...). */
  doc: string;
  /** JSON of the mentions extracted from description and recap blocks. */
  mentions: string;
  created_at: EpochMicros;
  updated_at: EpochMicros;
}

export interface CalendarEventTagsTable {
  community_id: string;
  event_id: string;
  tag_id: string;
  /** The event's updated_at, kept by every writer of tag rows: the order in which a tag's record is looked up. */
  event_updated_at: EpochMicros;
}

export interface CalendarEventFeedsTable {
  community_id: string;
  event_id: string;
  feed_id: string;
}

export interface CalendarEventPeopleTable {
  community_id: string;
  event_id: string;
  role: 'host' | 'speaker';
  position: number;
  profile_id: string;
}

export interface CalendarEventAttendeesTable {
  community_id: string;
  event_id: string;
  profile_id: string;
  personal_join_link: string | null;
  created_at: EpochMicros;
  updated_at: EpochMicros;
}

export interface IdempotencyKeysTable {
  community_id: string;
  key: string;
  fingerprint: string;
  state: 'in_flight' | 'done';
  status_code: number | null;
  headers: string | null;
  body: string | null;
  created_at: EpochMillis;
  /** In flight: when a crashed claim is considered abandoned. Done: when the stored response expires. */
  expires_at: EpochMillis;
}

export interface WebhookEndpointsTable {
  id: string;
  community_id: string;
  url: string;
  /** JSON array of the wanted event types; null is every type. */
  events: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: EpochMillis | null;
  disabled_at: EpochMillis | null;
  disabled_reason: string | null;
  failing_since: EpochMillis | null;
  created_at: EpochMillis;
  updated_at: EpochMillis;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  community_id: string;
  endpoint_id: string;
  /** The Standard Webhooks message id (`webhook-id`), the same on every attempt. */
  webhook_id: string;
  /** Written only from the closed list (the write path's `emit`, the test send); read back as it. */
  type: WebhookEventType;
  /** The exact body sent (JSON text), so every attempt signs the same bytes. */
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: EpochMillis;
  lease_owner: string | null;
  lease_until: EpochMillis | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: EpochMillis;
  position: number;
  delivered_at: EpochMillis | null;
  updated_at: EpochMillis;
}

/** One attempt to send a delivery (migration 015): kept as long as its delivery. */
export interface WebhookDeliveryAttemptsTable {
  id: string;
  delivery_id: string;
  /** Epoch ms, like the rest of the webhook tables. */
  attempted_at: EpochMillis;
  response_status: number | null;
  duration_ms: DurationMs;
  error: string | null;
}

/** An award an operator defined (migration 015). Instants in epoch µs. */
export interface AwardsTable {
  community_id: string;
  id: string;
  name: string;
  description: string | null;
  emoji: string | null;
  created_at: EpochMicros;
  updated_at: EpochMicros;
}

/** Who holds which award: one row per (award, profile). */
export interface AwardAssignmentsTable {
  community_id: string;
  award_id: string;
  profile_id: string;
  sender_profile_id: string | null;
  send_anonymously: Flag;
  assigned_at: EpochMicros;
}

export type AwardNotificationStatus = 'pending' | 'sent' | 'failed';

/** A Slack direct message telling a recipient of an award, waiting to be sent (epoch ms, like the other queues). */
export interface AwardNotificationsTable {
  id: string;
  community_id: string;
  award_id: string;
  profile_id: string;
  channel: string;
  text: string;
  status: AwardNotificationStatus;
  attempts: number;
  next_attempt_at: EpochMillis;
  lease_until: EpochMillis;
  last_error: string | null;
  sent_at: EpochMillis | null;
  created_at: EpochMillis;
}

/** A webhook event waiting to be fanned out to its endpoints' deliveries (migration 010). */
export interface WebhookOutboxTable {
  id: Generated<number>;
  community_id: string;
  webhook_id: string;
  type: WebhookEventType;
  payload: string;
  /** JSON array of the endpoint ids that wanted the event when it was written. */
  endpoint_ids: string;
  created_at: EpochMillis;
  position: number;
}

export interface ChatSyncConnectionsTable {
  community_id: string;
  team_id: string;
  /** The workspace's address (auth.test `url`), the base of permalinks. */
  team_url: string;
  api_app_id: string | null;
  bot_user_id: string | null;
  bot_token: string;
  signing_secret: string;
  /** Epoch ms (the CLI's clock), unlike chat_connections.connected_at. */
  connected_at: EpochMillis;
}

export interface ChatSyncCheckpointsTable {
  community_id: string;
  /** `users`, `channel:C…` (history), ... */
  scope: string;
  /** The next page's cursor; "" before the first page. */
  cursor: string;
  done: Flag;
  items: number;
  updated_at: EpochMicros;
}

export interface ChatEventQueueTable {
  community_id: string;
  event_id: string;
  event_type: string;
  body: string;
  received_at: EpochMillis;
  attempts: number;
  /** A worker holds the row until then; 0 when nobody does. */
  lease_until: EpochMillis;
  applied_at: EpochMillis | null;
  last_error: string | null;
}

export type ChatSyncJobState = 'queued' | 'running' | 'succeeded' | 'failed';

/** A backfill run by the server for the API (migration 021, docs/chat.md "Sync jobs and status"). */
export interface ChatSyncJobsTable {
  id: string;
  community_id: string;
  state: ChatSyncJobState;
  /** `chat sync --since` as epoch ms; null for the whole history. */
  since: EpochMillis | null;
  /** JSON: the counts `chat sync --json` prints (users, channels, messages, rate_limit_waits, seconds). */
  progress: string;
  error: string | null;
  attempts: number;
  /** A worker holds the job until then (renewed while it runs); 0 when nobody does. */
  lease_until: EpochMillis;
  created_at: EpochMillis;
  started_at: EpochMillis | null;
  finished_at: EpochMillis | null;
  updated_at: EpochMillis;
}

/** What was last learnt of a community's Slack connection (migration 021). Errors are Slack's codes. */
export interface ChatSyncStatusTable {
  community_id: string;
  admin_token_checked_at: EpochMillis | null;
  admin_token_error: string | null;
  bot_token_checked_at: EpochMillis | null;
  bot_token_error: string | null;
  channels_checked_at: EpochMillis | null;
  /** JSON: [{channel_id, name, bot_is_member, error}] of the bound channels at the last check. */
  channels: string | null;
  last_sync_at: EpochMillis | null;
  last_sync_result: 'succeeded' | 'failed' | null;
  last_sync_error: string | null;
  /** The job of the last backfill; null when it was the CLI's. */
  last_sync_job_id: string | null;
}

/**
 * A post's search entry (docs/search.md), written with the post by its query functions: what a search
 * filters and orders by, and what tells whether the indexed text changed. The index itself is
 * engine-specific and not typed here: SQLite's FTS5 table `post_search_fts` (rowid = `doc_id`, an
 * INTEGER PRIMARY KEY of this table there) and PostgreSQL's `terms` tsvector column (GIN index).
 */
export interface PostSearchTable {
  community_id: string;
  post_id: string;
  feed_id: string;
  author_profile_id: string | null;
  /** The author's preferred_name as indexed: a rename reindexes the author's posts. */
  author_name: string;
  in_home: Flag;
  latest_activity_at: EpochMicros;
  /** Hash of the indexed text (title, body, author name): an unchanged text is not indexed again. */
  source_hash: string;
  /** SQLite only: the INTEGER PRIMARY KEY, the post's rowid in `post_search_fts`. */
  doc_id: Generated<number>;
  /** PostgreSQL only: the indexed tokens (a tsvector, written from a literal). */
  terms: string | null;
}

/**
 * A community whose search index predates word pairs (migration 016): its searches do not use them
 * until `community-admin search reindex` builds the index again and deletes the row. Only that
 * migration adds rows, so a community once seen without one stays without (hits.ts caches that).
 */
export interface PostSearchUnpairedTable {
  community_id: string;
}

/** An uploaded file (docs/files.md); its bytes are its `file_chunks` rows. */
export interface CalendarFeedsTable {
  community_id: string;
  id: string;
  label: string;
  /** Hex SHA-256 of the feed's token (the token itself is never stored in the clear). */
  token_hash: string;
  /** A member's own feed: its token sealed by SecretBox, so its URL can be answered again. */
  token_sealed: string | null;
  /** Set for a member's own feed (the events the member attends). */
  member_id: string | null;
  tag_id: string | null;
  include_unlisted: Flag;
  created_at: EpochMicros;
  revoked_at: EpochMicros | null;
}

/** What a feed last showed of an event: its SEQUENCE and what a cancellation of it needs. */
export interface CalendarFeedEntriesTable {
  community_id: string;
  feed_id: string;
  event_id: string;
  sequence: number;
  /** Hash of the fields whose change raises SEQUENCE (start, end, location, link, title, status). */
  fingerprint: string;
  title: string;
  start_at: EpochMicros;
  end_at: EpochMicros | null;
  ends_at: EpochMicros;
  created_at: EpochMicros;
  /** When SEQUENCE was last raised (or the event's updated_at when first shown). */
  changed_at: EpochMicros;
  /** When the event left the feed (deleted, cancelled, filtered out): shown CANCELLED for a while. */
  removed_at: EpochMicros | null;
}

export interface FilesTable {
  community_id: string;
  id: string;
  name: string;
  /** The alt text given as `description`; null when none. */
  title: string | null;
  /** Detected from the bytes at upload, never taken from the client. */
  mimetype: string;
  size: number;
  /** Hex SHA-256 of the bytes: the strong ETag of downloads and the export's check. */
  sha256: string;
  /** Bytes per chunk row (every chunk but the last holds exactly this many). */
  chunk_size: number;
  created_at: EpochMicros;
}

export interface FileChunksTable {
  community_id: string;
  file_id: string;
  seq: number;
  data: Buffer;
}

/** An upload in progress, staged outside any transaction; moved into file_chunks when it commits. */
export interface FileUploadChunksTable {
  upload_id: string;
  seq: number;
  data: Buffer;
  /** Epoch milliseconds. */
  created_at: EpochMillis;
}

/**
 * The activity log (docs/activity.md): one record per change, chained per community by SHA-256.
 * `seq` orders a community's chain; context, changes and metadata are JSON texts (null: none).
 */
export interface ActivitiesTable {
  community_id: string;
  seq: number;
  id: string;
  occurred_at: EpochMicros;
  action: string;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  target_type: string;
  target_id: string | null;
  target_name: string | null;
  context: string | null;
  changes: string | null;
  metadata: string | null;
  prev_hash: string;
  hash: string;
}

/** The head of a community's activity chain: its last record's seq and hash (and the hash before it). */
export interface ActivityChainHeadsTable {
  community_id: string;
  seq: number;
  prev_hash: string;
  hash: string;
}

export interface DB {
  communities: CommunitiesTable;
  api_keys: ApiKeysTable;
  console_links: ConsoleLinksTable;
  chat_connections: ChatConnectionsTable;
  profiles: ProfilesTable;
  members: MembersTable;
  member_search: MemberSearchTable;
  chat_invitations: ChatInvitationsTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
  feeds: FeedsTable;
  posts: PostsTable;
  post_search: PostSearchTable;
  post_search_unpaired: PostSearchUnpairedTable;
  calendar_events: CalendarEventsTable;
  calendar_event_tags: CalendarEventTagsTable;
  calendar_event_feeds: CalendarEventFeedsTable;
  calendar_event_people: CalendarEventPeopleTable;
  calendar_event_attendees: CalendarEventAttendeesTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_outbox: WebhookOutboxTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  awards: AwardsTable;
  award_assignments: AwardAssignmentsTable;
  award_notifications: AwardNotificationsTable;
  chat_sync_connections: ChatSyncConnectionsTable;
  chat_sync_checkpoints: ChatSyncCheckpointsTable;
  chat_event_queue: ChatEventQueueTable;
  chat_sync_jobs: ChatSyncJobsTable;
  chat_sync_status: ChatSyncStatusTable;
  files: FilesTable;
  calendar_feeds: CalendarFeedsTable;
  calendar_feed_entries: CalendarFeedEntriesTable;
  file_chunks: FileChunksTable;
  file_upload_chunks: FileUploadChunksTable;
  activities: ActivitiesTable;
  activity_chain_heads: ActivityChainHeadsTable;
}

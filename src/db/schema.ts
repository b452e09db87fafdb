import type { Generated } from 'kysely';
import type { Plan } from '../shared/plans.js';
import type { DurationMs, EpochMicros, EpochMillis } from '../shared/time.js';

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
  type: string;
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
  type: string;
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

export interface DB {
  communities: CommunitiesTable;
  api_keys: ApiKeysTable;
  chat_connections: ChatConnectionsTable;
  profiles: ProfilesTable;
  members: MembersTable;
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
  files: FilesTable;
  file_chunks: FileChunksTable;
  file_upload_chunks: FileUploadChunksTable;
}

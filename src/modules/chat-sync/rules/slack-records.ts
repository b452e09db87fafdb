import { createHash } from 'node:crypto';
import { type RichTextBlock, validateBlocks } from '../../../rich-text/index.js';
import type { FeedDoc } from '../../feeds/feeds.schemas.js';
import type { PostImport } from '../../posts/posts.schemas.js';
import type { ProfileImport } from '../../profiles/profiles.schemas.js';

/*
 * Slack's objects (users.list members, conversations.info channels, history messages, Events API
 * payloads) mapped to the records of the import file, so that the sync writes through the same
 * sections (validation, derived bodies and references, in_home, stamps) as an import.
 */

export type SlackObject = Record<string, unknown>;

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const obj = (value: unknown): SlackObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as SlackObject) : {};
const cut = (value: string, max: number): string => (value.length > max ? value.slice(0, max) : value);

/**
 * A stable UUID for a Slack object (`kind` and its ids): the same message or user maps to the same
 * record on every run and every instance, which is what makes the sync idempotent.
 */
export function stableUuid(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Slack's `ts` ("1747250195.525399") as an ISO instant to the microsecond. */
export function tsToIso(ts: string): string {
  const [seconds = '0', fraction = ''] = ts.split('.');
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return `${base}.${fraction.padEnd(6, '0').slice(0, 6)}Z`;
}

/** Compares two Slack ts values (same width of seconds for centuries to come, but be exact). */
export const tsLater = (a: string, b: string): string => (Number(a) >= Number(b) ? a : b);

const imageSizes = ['1024', '512', '192', '72', '48', '32', '24'] as const;

/** A users.list member (or users.info / user_change user) as a profile record. */
export function profileRecordOf(user: SlackObject, profileId: string): ProfileImport {
  const profile = obj(user.profile);
  const image = (size: string) => str(profile[`image_${size}`]);
  const original = str(profile.image_original) || image('1024') || image('512') || image('192') || image('72');
  const realName = str(profile.real_name) || str(user.real_name);
  const first = str(profile.first_name) || realName.split(' ')[0] || '';
  const last = str(profile.last_name) || (realName.includes(' ') ? realName.slice(realName.indexOf(' ') + 1) : '');
  return {
    profile_id: profileId,
    // Bots, guests and users whose address the token may not read have none (decisions.md).
    email: str(profile.email) || null,
    preferred_name: cut(str(profile.display_name) || realName || str(user.name), 200),
    preferred_image_original: original,
    ...Object.fromEntries(imageSizes.map((size) => [`preferred_image_${size}`, image(size)])),
    first_name: cut(first, 200),
    last_name: cut(last, 200),
    chat_user_id: str(user.id),
    chat_is_admin: user.is_admin === true || user.is_owner === true,
    chat_is_bot: user.is_bot === true || user.id === 'USLACKBOT',
    chat_first_name: cut(str(profile.first_name), 200),
    chat_last_name: cut(str(profile.last_name), 200),
    chat_image_72: image('72'),
    chat_image_original: original,
  } as ProfileImport;
}

/**
 * A channel purpose or topic (Slack's mrkdwn text) as Slack's own block for it: one `section` with
 * a `mrkdwn` text object, as the hosted product answers them (decisions.md). The import keeps it
 * verbatim and finds the user, channel and link references in the text.
 */
function mrkdwnBlocks(text: string): RichTextBlock[] {
  if (text.trim() === '') return [];
  const section: unknown = { type: 'section', text: { type: 'mrkdwn', text } };
  return [section as RichTextBlock];
}

/** The channel fields of a feed from a conversations.info channel (or an event's channel). */
export function channelFields(channel: SlackObject): Partial<FeedDoc> & { is_archived?: boolean } {
  const fields: Partial<FeedDoc> & { is_archived?: boolean } = {};
  if (typeof channel.name === 'string') fields.chat_channel_name = channel.name;
  if (typeof channel.num_members === 'number') fields.chat_channel_num_members = channel.num_members;
  if (typeof channel.is_private === 'boolean') fields.chat_channel_is_private = channel.is_private;
  if (typeof channel.is_archived === 'boolean') fields.is_archived = channel.is_archived;
  if (channel.purpose !== undefined) fields.chat_channel_purpose_chat_blocks = mrkdwnBlocks(str(obj(channel.purpose).value));
  if (channel.topic !== undefined) fields.chat_channel_topic_chat_blocks = mrkdwnBlocks(str(obj(channel.topic).value));
  return fields;
}

/**
 * A message's blocks as Slack sent them (any block type: the import keeps them verbatim). Only what
 * the import could not store (a block without a type, nesting or size past its limits) is left out,
 * so that one odd block never costs the whole message; the text stands in when nothing is left.
 */
function acceptedBlocks(blocks: unknown): RichTextBlock[] {
  if (!Array.isArray(blocks)) return [];
  if (validateBlocks(blocks, 'blocks').length === 0) return blocks as RichTextBlock[];
  const kept = blocks.filter((block) => validateBlocks([block], 'blocks').length === 0);
  return (validateBlocks(kept, 'blocks').length === 0 ? kept : []) as RichTextBlock[];
}

export interface MessageContext {
  teamId: string;
  teamUrl: string;
  channelId: string;
  feedId: string;
  authorProfileId: string;
  /** Replies of the thread (excluding the parent), counted by the caller. */
  comments?: { count: number; latestTs: string };
}

/** The permalink Slack documents: the workspace address, /archives/{channel}/p{ts without the dot}. */
function permalinkOf(teamUrl: string, channelId: string, ts: string): string {
  if (teamUrl === '') return '';
  const base = teamUrl.endsWith('/') ? teamUrl : `${teamUrl}/`;
  return `${base}archives/${channelId}/p${ts.replace('.', '')}`;
}

/** A post per message and feed: two feeds bound to one channel each have their own post of a message. */
export const postIdOf = (teamId: string, feedId: string, ts: string): string => stableUuid('post', teamId, feedId, ts);

/** A top-level channel message as a post record. */
export function postRecordOf(message: SlackObject, context: MessageContext): PostImport {
  const ts = str(message.ts);
  const reactions = Array.isArray(message.reactions) ? message.reactions : [];
  const files = Array.isArray(message.files) ? message.files : [];
  const blocks = acceptedBlocks(message.blocks);
  const replyCount = context.comments?.count ?? (typeof message.reply_count === 'number' ? message.reply_count : 0);
  const latestReply = context.comments?.latestTs || str(message.latest_reply);
  const icons = obj(message.icons);
  return {
    id: postIdOf(context.teamId, context.feedId, ts),
    feed_id: context.feedId,
    author_profile_id: context.authorProfileId,
    created_at: tsToIso(ts),
    content_created_at: tsToIso(ts),
    latest_activity_at: tsToIso(latestReply ? tsLater(ts, latestReply) : ts),
    source: 'chat',
    reactions_count: reactions.reduce(
      (sum: number, reaction) => sum + (typeof obj(reaction).count === 'number' ? (obj(reaction).count as number) : 0),
      0,
    ),
    comments_count: replyCount,
    file_attachments_count: files.length,
    ...(blocks.length === 0 ? { body_plaintext: cut(str(message.text), 1_000_000) } : {}),
    chat_message: {
      id: stableUuid('message', context.teamId, context.channelId, ts),
      message_ts: ts,
      blocks,
      permalink: permalinkOf(context.teamUrl, context.channelId, ts),
      username: cut(str(message.username), 2048),
      icon: cut(str(icons.image_48) || str(icons.image_72) || str(icons.emoji), 2048),
    },
  };
}

/** True for a message that is a thread reply (not the thread's parent). */
export const isThreadReply = (message: SlackObject): boolean => typeof message.thread_ts === 'string' && message.thread_ts !== message.ts;

/** Subtypes that are channel chatter rather than posts (joins, topic changes, ...). */
const skippedSubtypes = new Set([
  'channel_join',
  'channel_leave',
  'channel_topic',
  'channel_purpose',
  'channel_name',
  'channel_archive',
  'channel_unarchive',
  'group_join',
  'group_leave',
  'group_topic',
  'group_purpose',
  'group_name',
  'group_archive',
  'group_unarchive',
  'pinned_item',
  'unpinned_item',
  'ekm_access_denied',
  'message_replied',
  'message_changed',
  'message_deleted',
]);

/** True for a message that becomes a post (a person's or a bot's message, not a channel notice). */
export const isPostable = (message: SlackObject): boolean =>
  typeof message.ts === 'string' && !isThreadReply(message) && !skippedSubtypes.has(str(message.subtype));

/** Who wrote a message: a user id, or for a bot's message without one, its bot id. */
export const authorIdOf = (message: SlackObject): string => str(message.user) || str(message.bot_id);

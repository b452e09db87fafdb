import type { Flag } from '../../db/schema.js';
import { emptyReferences } from '../../rich-text/build-references.js';
import type { Mentions } from '../../rich-text/extract-mentions.js';
import type { References, RichTextBlock } from '../../rich-text/rich-text.schemas.js';
import { toIso } from '../../shared/clock.js';
import type { Profile } from '../profiles/profiles.schemas.js';
import type { CalendarEvent, EventStatus, PublishedTo, Reminder, Tag } from './calendar-events.schemas.js';

/**
 * The stored fields of an event that are neither columns nor derived: the `doc` JSON. Columns
 * (status, dates, flags, counts, timestamps) are the only source of what they hold.
 */
export interface CalendarEventDoc {
  title: string;
  description_chat_blocks: RichTextBlock[] | null;
  recap_chat_blocks: RichTextBlock[];
  allow_public_guest_list: boolean;
  enable_registration_button: boolean;
  show_end_date: boolean;
  external_speakers: string;
  link: string;
  location: string;
  partner_event_id: string;
  triggers_webhooks: boolean;
  webhook_custom_metadata: string;
  recording_link: string;
  slug: string;
  use_registration_btn_as_link: boolean;
  cover_image_url: string;
  published_to: PublishedTo[];
  tags: Tag[];
  reminders_config: Reminder[];
}

/** The `mentions` JSON: what the description and the recap blocks refer to. */
export interface CalendarEventMentions {
  description: Mentions;
  recap: Mentions;
}

/** A calendar_events row as read for responses. */
export interface CalendarEventRow {
  id: string;
  status: EventStatus;
  start_at: number;
  end_at: number | null;
  publish_to_site: Flag;
  is_unlisted: Flag;
  attendees_count: number;
  doc: string;
  mentions: string;
  created_at: number;
  updated_at: number;
}

/** Columns selected for CalendarEventRow. */
export const eventRowColumns = [
  'id',
  'status',
  'start_at',
  'end_at',
  'publish_to_site',
  'is_unlisted',
  'attendees_count',
  'doc',
  'mentions',
  'created_at',
  'updated_at',
] as const;

/** Hosts and speakers of one event, in their stored order. */
export interface EventPeople {
  hosts: Profile[];
  speakers: Profile[];
}

const noMentions = (): Mentions => ({ userIds: [], channelIds: [], customEmojis: [], urls: [] });

/** The stored mentions of a row (an unreadable value counts as no mentions). */
export function mentionsOf(row: Pick<CalendarEventRow, 'mentions'>): CalendarEventMentions {
  const parsed = JSON.parse(row.mentions) as Partial<CalendarEventMentions> | null;
  return { description: parsed?.description ?? noMentions(), recap: parsed?.recap ?? noMentions() };
}

/** The API record of a row, its people and its resolved references; absent doc keys take defaults. */
export function toCalendarEvent(
  row: CalendarEventRow,
  people: EventPeople | undefined,
  references: { description: References; recap: References } | undefined,
): CalendarEvent {
  const doc = JSON.parse(row.doc) as Partial<CalendarEventDoc>;
  return {
    id: row.id,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    allow_public_guest_list: doc.allow_public_guest_list ?? false,
    description_chat_blocks: doc.description_chat_blocks === undefined ? [] : doc.description_chat_blocks,
    description_chat_blocks_references: references?.description ?? emptyReferences(),
    recap_chat_blocks: doc.recap_chat_blocks ?? [],
    recap_chat_blocks_references: references?.recap ?? emptyReferences(),
    enable_registration_button: doc.enable_registration_button ?? false,
    start_date: toIso(row.start_at),
    end_date: row.end_at === null ? '' : toIso(row.end_at),
    show_end_date: doc.show_end_date ?? false,
    external_speakers: doc.external_speakers ?? '',
    is_unlisted: row.is_unlisted === 1,
    link: doc.link ?? '',
    location: doc.location ?? '',
    partner_event_id: doc.partner_event_id ?? '',
    publish_to_site: row.publish_to_site === 1,
    triggers_webhooks: doc.triggers_webhooks ?? false,
    webhook_custom_metadata: doc.webhook_custom_metadata ?? '',
    recording_link: doc.recording_link ?? '',
    slug: doc.slug ?? '',
    status: row.status,
    title: doc.title ?? '',
    use_registration_btn_as_link: doc.use_registration_btn_as_link ?? false,
    attendees_count: Number(row.attendees_count),
    published_to: doc.published_to ?? [],
    hosts: people?.hosts ?? [],
    speakers: people?.speakers ?? [],
    cover_image_url: doc.cover_image_url ?? '',
    tags: doc.tags ?? [],
    reminders_config: doc.reminders_config ?? [],
  };
}

/** True for an absolute http(s) URL with a host and no whitespace (personal join links). */
export function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

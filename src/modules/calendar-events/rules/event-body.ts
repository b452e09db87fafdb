import { refuse } from '../../../shared/failures.js';
import { isUuid, normaliseEmail } from '../../../shared/ids.js';
import type { ProfileKey } from '../../profiles/profiles.queries.js';
import type { CreateEventBody, EventPerson, UpdateEventBody } from '../schemas/bodies.js';
import { isHttpUrl } from './event-record.js';

/*
 * The rules that turn a body of POST or PATCH /calendar_events into an event record (the import's
 * shape), so that both go through the same record rules (./event-record.ts). Failures name the
 * record's fields; the API renders them in its own names.
 */

/** An event record as the import file spells it (the input of parseEventRecord). */
export type EventRecord = Record<string, unknown>;
export type EventBody = UpdateEventBody | CreateEventBody;

/** Fields copied as they are into the record (null there means "the default", i.e. cleared). */
const plainFields = [
  'title',
  'start_date',
  'end_date',
  'show_end_date',
  'location',
  'link',
  'recording_link',
  'cover_image_url',
  'external_speakers',
  'partner_event_id',
  'status',
  'is_unlisted',
  'publish_to_site',
  'allow_public_guest_list',
  'enable_registration_button',
  'use_registration_btn_as_link',
  'triggers_webhooks',
  'webhook_custom_metadata',
  'reminders_config',
  'slug',
] as const;

/** Plain text as one rich text block (newlines kept inside the text, as the chat platform does). */
function textBlocks(text: string): unknown[] {
  if (text === '') return [];
  return [{ type: 'rich_text', block_id: 'text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }] }];
}

/** Blocks from `<name>_chat_blocks` or `<name>_text`, never both; undefined when the body has neither. */
function blocksOf(body: EventBody, name: 'description' | 'recap'): unknown[] | null | undefined {
  const blocks = body[`${name}_chat_blocks`];
  const text = body[`${name}_text`];
  if (blocks !== undefined && text !== undefined) {
    throw refuse([`${name}_text`], 'conflict', `cannot be sent together with ${name}_chat_blocks (send one of them)`);
  }
  return text !== undefined ? textBlocks(text) : blocks;
}

/**
 * The record after applying the body's own fields to `base` (absent: unchanged; null: cleared).
 * What names other records (hosts, speakers, tags, the slug) is resolved by the command.
 */
export function recordWithBody(base: EventRecord, id: string, body: EventBody): EventRecord {
  const record: EventRecord = { ...base, id };
  for (const field of plainFields) if (body[field] !== undefined) record[field] = body[field];
  if (body.cover_image_file_id !== undefined) {
    if (body.cover_image_url !== undefined)
      throw refuse(['cover_image_file_id'], 'conflict', 'cannot be sent together with cover_image_url (the file gives the URL)');
    // The file's URL replaces the stored one; null clears the cover image.
    record.cover_image_url = null;
    if (body.cover_image_file_id !== null) record.cover_image_file_id = body.cover_image_file_id;
  }
  const description = blocksOf(body, 'description');
  if (description !== undefined) record.description_chat_blocks = description;
  const recap = blocksOf(body, 'recap');
  if (recap !== undefined) record.recap_chat_blocks = recap;
  return record;
}

const personFields = ['chat_user_id', 'email', 'profile_id'] as const;

/**
 * The profile a host or speaker names by exactly one of its identifiers; `path` is where the
 * person is in the record (`['host_profile_ids', 1]`). A blank e-mail names no one.
 */
export function profileKeyOf(person: EventPerson, path: readonly (string | number)[]): ProfileKey {
  const given = personFields.filter((field) => person[field] !== undefined);
  const field = given.length === 1 ? (given[0] as (typeof personFields)[number]) : undefined;
  const value = field === undefined ? '' : (person[field] as string);
  // Profiles without an e-mail are stored with "": a blank e-mail must not find one of them.
  const key: ProfileKey | undefined =
    field === 'email'
      ? { column: 'email_norm', value: normaliseEmail(value) }
      : field === 'profile_id'
        ? // Profile ids are stored lower-case; a UUID is the same id in any letter case.
          { column: 'id', value: isUuid(value) ? value.toLowerCase() : value }
        : field === 'chat_user_id'
          ? { column: 'chat_user_id', value }
          : undefined;
  if (key === undefined || key.value === '')
    throw refuse(path, 'one_identifier', 'must hold exactly one of chat_user_id, email, profile_id');
  return key;
}

/** The failure of a host or speaker that names no profile of the community. */
export function unknownPerson(person: EventPerson, path: readonly (string | number)[]) {
  const given = Object.entries(person).find(([, value]) => value !== undefined);
  return refuse(path, 'unknown_reference', `no profile with ${given?.[0]} "${given?.[1]}" in this community`);
}

/** A slug from a title: lower-case ASCII letters and digits joined by single hyphens, at most 80 characters. */
export function slugOfTitle(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug === '' ? 'event' : slug;
}

/** An attendee's personal join link: undefined leaves it as it is; null clears it; else the checked link. */
export function joinLinkOf(value: string | null | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  if (!isHttpUrl(value)) throw refuse(['personal_join_link'], 'format', 'must be an http(s) URL (or "" or null to clear it)');
  return value;
}

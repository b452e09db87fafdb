import type { Db, Tx } from '../../../db/database.js';
import { atIndex } from '../../../import/import-section.js';
import { refuse } from '../../../shared/failures.js';
import { selectFileNames } from '../../files/files.queries.js';
import { fileUrl } from '../../files/files.records.js';
import { selectProfileIdByKey } from '../../profiles/profiles.queries.js';
import { selectKnownTags } from '../queries/children.js';
import { selectTakenSlugs } from '../queries/events.js';
import { profileKeyOf, slugOfTitle, unknownPerson } from '../rules/event-body.js';
import type { ParsedEvent } from '../rules/event-record.js';
import type { EventPerson } from '../schemas/bodies.js';

/*
 * What an event's record names beside itself, resolved against the community's data: hosts and
 * speakers, tags, the slug, the cover image file. Failures name the record's fields.
 */

/** Profile ids of hosts or speakers (`field`: host_profile_ids or speaker_profile_ids), refusing the first that names no profile. */
export async function resolvePeople(
  db: Db | Tx,
  communityId: string,
  people: readonly EventPerson[],
  field: 'host_profile_ids' | 'speaker_profile_ids',
): Promise<string[]> {
  const ids: string[] = [];
  for (const [j, person] of people.entries()) {
    const id = await selectProfileIdByKey(db, communityId, profileKeyOf(person, [field, j]));
    if (id === undefined) throw unknownPerson(person, [field, j]);
    ids.push(id);
  }
  return ids;
}

/** Tag records of the given ids, refusing the first id no event of the community carries. */
export async function resolveTags(db: Db | Tx, communityId: string, ids: readonly string[]) {
  const known = await selectKnownTags(db, communityId, ids);
  return ids.map((id, j) => {
    const tag = known.get(id);
    if (!tag) throw refuse(['tags', j, 'id'], 'unknown_reference', `no tag "${id}" in this community (tags come from the import)`);
    return tag;
  });
}

/** Suffixed candidates looked up per statement when the title's slug is taken. */
const slugCandidatesPerLookup = 50;

/** The given slug when free (refused otherwise), or the title's slug made unique with -2, -3, ... */
export async function settleSlug(
  db: Db | Tx,
  communityId: string,
  eventId: string,
  given: string | undefined,
  title: string,
): Promise<string> {
  const holderOf = async (slugs: string[]) => selectTakenSlugs(db, communityId, slugs);
  if (given !== undefined) {
    const holder = (await holderOf([given])).get(given);
    if (holder !== undefined && holder !== eventId) {
      throw refuse(['slug'], 'taken', `"${given}" is already the slug of another event of this community`);
    }
    return given;
  }
  const base = slugOfTitle(title);
  for (let from = 1; ; from += slugCandidatesPerLookup) {
    const candidates = Array.from({ length: slugCandidatesPerLookup }, (_, i) => (from + i === 1 ? base : `${base}-${from + i}`));
    const taken = await holderOf(candidates);
    const free = candidates.find((slug) => taken.get(slug) === undefined || taken.get(slug) === eventId);
    if (free !== undefined) return free;
  }
}

/** The public URL of each uploaded file the records name as cover image (cover_image_file_id). */
async function coverImageUrls(
  db: Db | Tx,
  communityId: string,
  records: readonly ParsedEvent[],
  baseUrl: string,
): Promise<Map<string, string>> {
  const ids = records.flatMap((record) => (record.coverImageFileId === null ? [] : [record.coverImageFileId]));
  const urls = new Map<string, string>();
  if (ids.length === 0) return urls;
  for (const [id, name] of await selectFileNames(db, communityId, ids)) urls.set(id, fileUrl(baseUrl, id, name));
  return urls;
}

/** Sets the record's cover_image_url to its file's URL; refused when the community has no such file. */
function setCoverImage(record: ParsedEvent, urls: ReadonlyMap<string, string>): void {
  const id = record.coverImageFileId;
  if (id === null) return;
  const url = urls.get(id);
  if (url === undefined) throw refuse(['cover_image_file_id'], 'unknown_reference', `no file "${id}" in this community`);
  record.doc = { ...record.doc, cover_image_url: url };
}

/**
 * Sets the cover_image_url of an event that names an uploaded file (cover_image_file_id) to that
 * file's public URL. The URL is stored as it is now (PUBLIC_BASE_URL at the time of the write:
 * docs/files.md).
 */
export async function resolveCoverImage(db: Db | Tx, communityId: string, record: ParsedEvent, baseUrl: string): Promise<void> {
  setCoverImage(record, await coverImageUrls(db, communityId, [record], baseUrl));
}

/** resolveCoverImage for a batch of the import, in one read; a failure's path starts with the record's index. */
export async function resolveCoverImages(
  db: Db | Tx,
  communityId: string,
  records: readonly ParsedEvent[],
  baseUrl: string,
): Promise<void> {
  const urls = await coverImageUrls(db, communityId, records, baseUrl);
  for (const [index, record] of records.entries()) atIndex(index, () => setCoverImage(record, urls));
}

import type { ImportSection } from '../../import/import-section.js';
import { assertUniqueIds, ImportError, schemaParser } from '../../import/import-section.js';
import { formatJsonTimestamp, parseTimestamp, timestampRule } from '../../shared/timestamps.js';
import { selectProfileCreatedAt, upsertProfiles } from './profiles.queries.js';
import { type ProfileImport, ProfileImportSchema, profileFromImport } from './profiles.schemas.js';

const parseShape = schemaParser<ProfileImport>('profiles', ProfileImportSchema);

/** The `profiles` section of the import file. */
export const profilesImportSection: ImportSection<ProfileImport> = {
  name: 'profiles',
  parse(record, index) {
    const profile = parseShape(record, index);
    if (profile.created_at && parseTimestamp(profile.created_at) === undefined)
      throw new ImportError('profiles', index, 'created_at', timestampRule);
    return profile;
  },
  async apply(tx, records, context) {
    assertUniqueIds('profiles', records, (record) => record.profile_id.toLowerCase(), 'profile_id');
    // A profile the file gives no created_at keeps the one it has, so re-importing a file changes nothing.
    const known = await selectProfileCreatedAt(
      tx,
      context.communityId,
      records.filter((r) => !r.created_at).map((r) => r.profile_id.toLowerCase()),
    );
    const nowIso = formatJsonTimestamp(context.now);
    const profiles = records.map((record) => {
      const existing = known.get(record.profile_id.toLowerCase());
      return profileFromImport(record, existing === undefined ? nowIso : formatJsonTimestamp(existing));
    });
    await upsertProfiles(tx, context.communityId, profiles, context.now);
    return records.length;
  },
};

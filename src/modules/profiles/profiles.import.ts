import type { ImportSection } from '../../import/import-section.js';
import { assertUniqueIds, schemaParser } from '../../import/import-section.js';
import { toIso } from '../../shared/clock.js';
import { selectProfileCreatedAt, upsertProfiles } from './profiles.queries.js';
import { type ProfileImport, ProfileImportSchema, profileFromImport } from './profiles.schemas.js';

/** The `profiles` section of the import file. */
export const profilesImportSection: ImportSection<ProfileImport> = {
  name: 'profiles',
  parse: schemaParser<ProfileImport>('profiles', ProfileImportSchema),
  async apply(tx, records, context) {
    assertUniqueIds('profiles', records, (record) => record.profile_id.toLowerCase(), 'profile_id');
    // A profile the file gives no created_at keeps the one it has, so re-importing a file changes nothing.
    const known = await selectProfileCreatedAt(
      tx,
      context.communityId,
      records.filter((r) => !r.created_at).map((r) => r.profile_id.toLowerCase()),
    );
    const nowIso = toIso(context.now);
    const profiles = records.map((record) => {
      const existing = known.get(record.profile_id.toLowerCase());
      return profileFromImport(record, existing === undefined ? nowIso : toIso(existing));
    });
    await upsertProfiles(tx, context.communityId, profiles, context.now);
    return records.length;
  },
};

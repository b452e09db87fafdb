import type { ImportSection } from '../../import/import-section.js';
import { assertUniqueIds, schemaParser } from '../../import/import-section.js';
import { toIso } from '../../shared/clock.js';
import { upsertProfiles } from './profiles.queries.js';
import { type ProfileImport, ProfileImportSchema, profileFromImport } from './profiles.schemas.js';

/** The `profiles` section of the import file. */
export const profilesImportSection: ImportSection<ProfileImport> = {
  name: 'profiles',
  parse: schemaParser<ProfileImport>('profiles', ProfileImportSchema),
  async apply(tx, records, context) {
    assertUniqueIds('profiles', records, (record) => record.profile_id.toLowerCase(), 'profile_id');
    const nowIso = toIso(context.now);
    await upsertProfiles(tx, context.communityId, records.map((record) => profileFromImport(record, nowIso)), context.now);
    return records.length;
  },
};

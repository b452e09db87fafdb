import type { ImportSection } from '../../import/import-section.js';
import { refuseDuplicateIds } from '../../import/import-section.js';
import { upsertProfiles } from './profiles.commands.js';
import { parseProfileRecord } from './profiles.rules.js';
import type { ProfileImport } from './profiles.schemas.js';

/** The `profiles` section of the import file. */
export const profilesImportSection: ImportSection<ProfileImport> = {
  name: 'profiles',
  parse: parseProfileRecord,
  async apply(context, records) {
    refuseDuplicateIds(records, (record) => record.profile_id.toLowerCase(), 'profile_id');
    await upsertProfiles(context, records);
    return records.length;
  },
};

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generatedDir, regenerateCommand, spellings, writeTypes } from '../../clients/typescript/scripts/openapi-types.js';
import { projectRoot } from '../support/cli.js';

// CI fails when the client's committed types are not those of the document the server serves.

describe('the typescript client types are those of the served OpenAPI document', () => {
  it('regenerates both spellings into a temp dir and finds the committed files identical', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-types-'));
    try {
      await writeTypes(dir);
      const committed = join(projectRoot, generatedDir);
      assert.deepEqual(
        readdirSync(committed).sort(),
        spellings.map((spelling) => `${spelling}.ts`).sort(),
        `${generatedDir} holds one file per spelling`,
      );
      for (const spelling of spellings) {
        const fresh = readFileSync(join(dir, `${spelling}.ts`), 'utf8');
        const current = readFileSync(join(committed, `${spelling}.ts`), 'utf8');
        assert.ok(
          fresh === current,
          `${generatedDir}/${spelling}.ts differs from the types of the document served with WIRE_NAMES=${spelling}: run \`${regenerateCommand}\` and commit the result`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

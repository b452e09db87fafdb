import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generatedDir, regenerateCommand, servedDocument, spellings, writeTypes } from '../../clients/typescript/scripts/openapi-types.js';
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

  it('calls no query parameter with a default required, so the typed calls need not send it', async () => {
    type Parameter = { in: string; name: string; required?: boolean; schema?: { default?: unknown } };
    const document = (await servedDocument('chat')) as { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };
    const defaulted: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in !== 'query' || parameter.schema?.default === undefined) continue;
          defaulted.push(parameter.name);
          assert.notEqual(parameter.required, true, `${method.toUpperCase()} ${path}: ${parameter.name} has a default yet is required`);
        }
      }
    }
    // The feed and post lists validate these as required (their handlers always see a value).
    assert.ok(defaulted.includes('sort'), 'the posts list has a defaulted sort');
  });
});

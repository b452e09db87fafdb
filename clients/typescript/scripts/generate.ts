// Regenerates the client's types from the OpenAPI document the server serves, for both spellings.
// Usage: npm run client:generate [-- --out <dir>]  (default: clients/typescript/src/generated)
import { join, relative } from 'node:path';
import { generatedDir, writeTypes } from './openapi-types.js';

const root = join(import.meta.dirname, '../../..');
const outFlag = process.argv.indexOf('--out');
const out = outFlag >= 0 && process.argv[outFlag + 1] ? process.argv[outFlag + 1] : join(root, generatedDir);
for (const path of await writeTypes(out)) process.stdout.write(`wrote ${relative(process.cwd(), path) || path}\n`);

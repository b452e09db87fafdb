// Prints the first load's size (the JavaScript and CSS that index.html references, gzipped) and
// fails the build above the budget of issue 39 (150 KB).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const budget = 150 * 1024;
const dist = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', 'dist');
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const assets = [...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1]);
let total = 0;
for (const asset of assets) total += gzipSync(readFileSync(join(dist, asset)), { level: 9 }).length;
const kb = (total / 1024).toFixed(1);
console.log(`console: first load ${kb} KB of JavaScript and CSS, gzipped (${assets.length} files; budget 150 KB)`);
if (total > budget) {
  console.error(`console: the first load is over its budget of 150 KB`);
  process.exit(1);
}

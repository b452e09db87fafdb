// The layers of docs/development.md ("Layers"), as ranks a file is given from its path, and the
// imports that run from a lower layer back up to a higher one. test/architecture/import-graph.test.ts
// holds src to its list of such imports; run this file to print them:
//   node --import tsx test/architecture/layers.ts
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { graphOf } from './import-graph.js';
import { filesUnder, root } from './source-tree.js';

/** The layers, top first: a file may import its own layer and those below it. */
export const layers = [
  'entry', // app.ts, main.ts, the CLI: build and run everything
  'routes', // src/http/ (the plumbing), every *.routes.ts, the routes' list and plan table, dependencies.ts
  'services', // a module's commands, reads, import, export, workers, services; export/, metrics/, the import's run
  'through', // write-path/ and caching/: what commands write through and reads are cached through
  'records', // a module's records (rows -> API records); references/
  'rules', // a module's pure rules (over rows and API values)
  'queries', // a module's statements
  'schemas', // a module's API schemas (the shapes every other role speaks)
  'below', // routing/ schemas/ caching/ write-path/ import/ rich-text/ chat/ wire-names/
  'base', // config.ts, errors.ts, db/, shared/
] as const;
export type Layer = (typeof layers)[number];

/** The folders of src that are modules (their files have roles), wherever they sit today. */
const moduleFolder = /^src\/(?:modules\/[\w-]+|webhooks|chat-sync|activity-log|idempotency)\//;

/** The folders the diagram draws below the modules, used by them all. */
const belowFolders = ['routing', 'schemas', 'import', 'rich-text', 'chat', 'wire-names'];

const roleLayer: Record<string, Layer> = {
  cli: 'entry',
  routes: 'routes',
  commands: 'services',
  reads: 'services',
  import: 'services',
  export: 'services',
  worker: 'services',
  service: 'services',
  rules: 'rules',
  records: 'records',
  schemas: 'schemas',
  queries: 'queries',
};

/**
 * The role of a module file that does not spell it in its name (the files outside src/modules that
 * predate the roles): what the file does, by its name. A file not listed is a service.
 */
const unnamedRoles: Record<string, string> = {
  'commands.ts': 'cli', // chat-sync's commander code
  'event-types.ts': 'schemas',
  'retry-schedule.ts': 'rules',
  'signing.ts': 'rules',
  'target-address.ts': 'rules',
  'sample-events.ts': 'records',
  'activity-records.ts': 'records',
  'slack-records.ts': 'records',
  'chat-event-outcome.ts': 'rules',
  'signature.ts': 'rules',
};

/** The layer of a repository path of src. */
export function layerOf(path: string): Layer {
  const name = path.split('/').pop() ?? path;
  if (path === 'src/app.ts' || path === 'src/main.ts' || path.startsWith('src/cli/')) return 'entry';
  if (path.startsWith('src/http/') || name.endsWith('.routes.ts') || name.endsWith('.plugin.ts')) return 'routes';
  if (path === 'src/dependencies.ts' || path === 'src/modules/routes.ts' || path === 'src/modules/plan-requirements.ts') return 'routes';
  if (path === 'src/config.ts' || path === 'src/errors.ts' || path.startsWith('src/db/') || path.startsWith('src/shared/')) return 'base';
  if (path.startsWith('src/write-path/') || path.startsWith('src/caching/')) return 'through';
  if (path.startsWith('src/references/')) return 'records';
  // The import's run and the contract its sections are applied with (a write's TxContext).
  if (path === 'src/import/run-import.ts' || path === 'src/import/sections.ts') return 'services';
  // What a route builds a command's context with (the write path's deps, the request's actor): the routes' own.
  if (path === 'src/routing/command-context.ts') return 'routes';
  if (belowFolders.some((folder) => path.startsWith(`src/${folder}/`))) return 'below';
  const module = moduleFolder.exec(path);
  if (module) {
    const inModule = path.slice(module[0].length);
    // `<resource>.<role>.ts`, a role folder `<role>/<topic>.ts`, or a name that ends in its role (`delivery-worker.ts`).
    const role = /^([\w-]+)\//.exec(inModule)?.[1] ?? /[.-]([a-z]+)\.ts$/.exec(inModule)?.[1] ?? '';
    return roleLayer[role] ?? roleLayer[unnamedRoles[inModule] ?? ''] ?? 'services';
  }
  return 'services'; // export/, metrics/
}

const rank = (layer: Layer): number => layers.indexOf(layer);

/** The imports of a graph that run from a lower layer back up to a higher one, as "from -> to (lower -> higher)", sorted. */
export function upwardImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (rank(layerOf(to)) < rank(layerOf(from))) found.push(`${from} -> ${to} (${layerOf(from)} -> ${layerOf(to)})`);
    }
  }
  return found.sort();
}

/** The import graph of this checkout's src. */
export function sourceGraph(at: string = root): Map<string, string[]> {
  return graphOf(new Map(filesUnder(join(at, 'src')).map((path) => [path, readFileSync(path, 'utf8')] as const)));
}

if (process.argv[1] === import.meta.filename) {
  const upward = upwardImports(sourceGraph());
  console.log(`${upward.length} imports run from a lower layer back up to a higher one:\n${upward.join('\n')}`);
}

// The layer line, checked over the import graph of src (docs/development.md, "Layers"):
//   - no file of src/modules imports src/http (resources know nothing of the HTTP plumbing);
//   - src/http imports no resource module (src/modules/...): what it needs from below (principal
//     lookup, idempotency store, plan table) it declares as an interface that app.ts wires;
//   - no import cycles anywhere in src (type-only imports included: a cycle of types is still a
//     knot that one cannot move without the other).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sourceGraph, upwardImports } from './layers.js';

/** Every edge that crosses the layer line, as "from -> to". */
export function layerViolations(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (from.startsWith('src/modules/') && to.startsWith('src/http/')) found.push(`${from} -> ${to} (a resource imports src/http)`);
      if (from.startsWith('src/http/') && to.startsWith('src/modules/')) found.push(`${from} -> ${to} (src/http imports a resource)`);
    }
  }
  return found;
}

/** The import cycles of a graph (each once, as the list of files around it). */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components: every component of more than one file, or a file that imports itself, is a cycle.
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (node: string): void => {
    indexOf.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indexOf.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, indexOf.get(next) ?? 0));
      }
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indexOf.has(node)) connect(node);
  return cycles;
}

const graph = sourceGraph();

/**
 * The imports that still run from a lower layer back up to a higher one (test/architecture/layers.ts
 * draws the layers), each with why it stays (docs/development.md, "Layers"). Named without `src/` or
 * `src/modules/`, so that a module moving under src/modules keeps its entry.
 */
const upwardAllowed = new Map([
  [
    'activities/activities.queries.ts -> activities/activities.records.ts',
    'the append computes the chain hash (chainHash) beside the canonical text it hashes, which the records file holds for the export and verify',
  ],
  ['shared/service-deps.ts -> chat/index.ts', "ServiceDeps names the chat port's factory type; the port sits beside its Slack adapter"],
  [
    'write-path/outbox.ts -> webhooks/commands/record-deliveries.ts',
    "the write path writes a change's outbox rows in the change's transaction, through the webhooks' writer",
  ],
  [
    'write-path/write-community-data.ts -> activities/commands/record-activities.ts',
    "the write path appends a change's activity records in the change's transaction, through the log's writer",
  ],
]);

const shortPath = (path: string): string => path.replace(/^src\/(?:modules\/)?/, '');

describe('the import graph of src (rule at the top of this file)', () => {
  it('has no import running back up a layer but those listed with why (upwardAllowed)', () => {
    const upward = upwardImports(graph);
    console.log(`${upward.length} imports run from a lower layer back up to a higher one:\n${upward.join('\n')}`);
    const edges = upward.map((line) =>
      line
        .replace(/ \(.*$/, '')
        .split(' -> ')
        .map(shortPath)
        .join(' -> '),
    );
    assert.deepEqual(
      edges.filter((edge) => !upwardAllowed.has(edge)),
      [],
      'a new import runs back up a layer: move the type or function it needs down, or list it in upwardAllowed with why',
    );
    assert.deepEqual(
      [...upwardAllowed.keys()].filter((edge) => !edges.includes(edge)),
      [],
      'an allowed import is gone: take it off upwardAllowed (and docs/development.md)',
    );
  });

  it('resolves imports to files that exist', () => {
    const missing = [...graph].flatMap(([from, targets]) => targets.filter((to) => !graph.has(to)).map((to) => `${from} -> ${to}`));
    assert.deepEqual(missing, []);
  });

  it('has no file of src/modules importing src/http, and no file of src/http importing a resource module', () => {
    assert.deepEqual(layerViolations(graph), []);
  });

  it('has no import cycles', () => {
    assert.deepEqual(cyclesOf(graph), []);
  });

  it('would see a crossing and a cycle (the checks themselves)', () => {
    const bad = new Map([
      ['src/modules/a/a.routes.ts', ['src/http/auth.ts']],
      ['src/http/auth.ts', ['src/modules/api-keys/api-keys.queries.ts']],
      ['src/modules/api-keys/api-keys.queries.ts', ['src/db/x.ts']],
      ['src/db/x.ts', ['src/db/y.ts']],
      ['src/db/y.ts', ['src/db/x.ts']],
    ]);
    assert.equal(layerViolations(bad).length, 2);
    assert.deepEqual(upwardImports(new Map([['src/db/x.ts', ['src/modules/a/a.queries.ts', 'src/shared/y.ts']]])), [
      'src/db/x.ts -> src/modules/a/a.queries.ts (base -> queries)',
    ]);
    assert.deepEqual(cyclesOf(bad), [['src/db/x.ts', 'src/db/y.ts']]);
  });
});

import { type Failure, formatPath } from '../shared/failures.js';
import { isRecord, type JsonRecord, MAX_ELEMENT_COUNT, MAX_NESTING_DEPTH } from './json-guards.js';

/*
 * What the import refuses in a value meant to be chat blocks: only what the response schemas
 * could not carry back verbatim (RichTextBlockSchema: objects with a string `type`, a string
 * `block_id` on blocks, `elements` arrays of such objects) and what would exhaust a reader
 * (nesting, size). Everything else the chat platform writes is kept as it is: any block type
 * (`section`, `header`, `context`, `divider`, `image`, ...), any element type, any extra field
 * (`indent`, `offset`, `border`, `unicode`, `skin_tone`, ...), even a known element whose fields
 * are not what its documentation says: the renderers show what they can of it (its text, or
 * nothing) and never fail on it. Real data is broader than any grammar written from samples
 * (decisions.md, "Answering as the hosted product answers"), and a block is never refused for it.
 */

const MAX_PROBLEMS = 100;

type Path = Failure['path'];

interface Walk {
  readonly rootPath: Path;
  readonly problems: Failure[];
  elementCount: number;
  halted: boolean;
}

/** Lists what keeps a value from being stored and answered as chat blocks, as `<path>: <message>` lines; [] when it can be. */
export function validateBlocks(value: unknown, path: string): string[] {
  return blockFailures(value, [path]).map((failure) => `${formatPath(failure.path)}: ${failure.message}`);
}

/** What keeps a value from being stored and answered as chat blocks, as failures whose paths start with `path`; [] when it can be. */
export function blockFailures(value: unknown, path: Path): Failure[] {
  if (!Array.isArray(value)) return [{ path, rule: 'type', message: 'must be an array of blocks' }];
  const walk: Walk = { rootPath: path, problems: [], elementCount: 0, halted: false };
  checkArray(value, path, true, 1, walk);
  return walk.problems;
}

function report(walk: Walk, path: Path, rule: string, message: string): void {
  if (walk.halted) return;
  if (walk.problems.length >= MAX_PROBLEMS) {
    walk.problems.push({ path: walk.rootPath, rule: 'too_many_problems', message: `more than ${MAX_PROBLEMS} problems; stopped checking` });
    walk.halted = true;
    return;
  }
  walk.problems.push({ path, rule, message });
}

function checkArray(items: readonly unknown[], path: Path, isBlock: boolean, depth: number, walk: Walk): void {
  for (let i = 0; i < items.length && !walk.halted; i++) {
    checkElement(items[i], [...path, i], isBlock, depth, walk);
  }
}

function checkElement(value: unknown, path: Path, isBlock: boolean, depth: number, walk: Walk): void {
  walk.elementCount++;
  if (walk.elementCount > MAX_ELEMENT_COUNT) {
    report(walk, walk.rootPath, 'too_many', `more than ${MAX_ELEMENT_COUNT} elements`);
    walk.halted = true;
    return;
  }
  if (depth > MAX_NESTING_DEPTH) {
    report(walk, path, 'too_deep', `nested deeper than ${MAX_NESTING_DEPTH} levels`);
    return;
  }
  if (!isRecord(value)) {
    report(walk, path, 'type', 'must be an object');
    return;
  }
  const type = value.type;
  if (typeof type !== 'string' || type === '') {
    report(
      walk,
      [...path, 'type'],
      type === undefined ? 'required' : 'type',
      type === undefined ? 'required' : 'must be a non-empty string',
    );
  }
  // block_id is declared as a string by the response schema whatever the block type.
  if (isBlock && value.block_id !== undefined && typeof value.block_id !== 'string') {
    report(walk, [...path, 'block_id'], 'type', 'must be a string');
  }
  checkChildren(value, path, depth, walk);
}

// `elements` is checked on every object, known type or not: responses declare it as an array
// of objects with a string `type`, and the serializer would fail on anything else.
function checkChildren(value: JsonRecord, path: Path, depth: number, walk: Walk): void {
  const elements = value.elements;
  if (elements === undefined) return;
  if (!Array.isArray(elements)) {
    report(walk, [...path, 'elements'], 'type', 'must be an array');
    return;
  }
  checkArray(elements, [...path, 'elements'], false, depth + 1, walk);
}

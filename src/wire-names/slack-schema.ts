import { slackNamesInText, toSlackName } from './wire-names.js';

/*
 * JSON schemas (route schemas, the OpenAPI document) in the hosted product's spelling: the keys
 * of every `properties` map, the entries of every `required` list, the names of parameters and the
 * identifiers inside descriptions. Schema keywords, `$id`s and references are left alone.
 */

/** A renamed copy of a JSON schema, or of a whole OpenAPI document. */
export function slackSchema<T>(node: T): T {
  return walk(node) as T;
}

function walk(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(walk);
  if (typeof node !== 'object' || node === null) return node;
  const source = node as Record<string | symbol, unknown>;
  const copy: Record<string | symbol, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [toSlackName(name), walk(schema)]));
    } else if (key === 'required' && Array.isArray(value)) {
      copy[key] = value.map((name) => (typeof name === 'string' ? toSlackName(name) : name));
    } else if ((key === 'description' || key === 'summary') && typeof value === 'string') {
      copy[key] = slackNamesInText(value);
    } else if (key === 'name' && typeof value === 'string' && typeof source.in === 'string') {
      // An OpenAPI parameter.
      copy[key] = toSlackName(value);
    } else {
      copy[key] = walk(value);
    }
  }
  // TypeBox keeps its own markers (Kind, Optional) under symbols.
  for (const symbol of Object.getOwnPropertySymbols(source)) copy[symbol] = source[symbol];
  return copy;
}

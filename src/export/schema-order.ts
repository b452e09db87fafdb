import type { TSchema } from '@sinclair/typebox';

/*
 * Key order of exported records. The file is compared byte for byte after a round trip, so every
 * object the import rebuilds (records, tags, published_to, chat_message ...) is written with its
 * keys in the order of the import schema's properties, whatever order the writer of the stored
 * JSON used; keys the schema does not know follow, sorted, so that the import refuses them loudly
 * rather than the export dropping them. Values the schema leaves open (rich text blocks, a
 * ProseMirror document) are kept exactly as stored: they are content, and the import keeps them verbatim.
 */

type JsonSchema = TSchema & {
  properties?: Record<string, TSchema>;
  items?: TSchema;
  anyOf?: TSchema[];
  type?: string | string[];
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The member of a union that describes this value's kind (object or array), if any. */
function branchFor(schema: JsonSchema, value: unknown): JsonSchema | undefined {
  if (!schema.anyOf) return schema;
  const members = schema.anyOf as JsonSchema[];
  if (Array.isArray(value)) return members.find((m) => m.items !== undefined);
  if (isPlainObject(value)) return members.find((m) => m.properties !== undefined);
  return undefined;
}

/** The value with the keys of every object the schema describes in the schema's order. */
export function orderLikeSchema(value: unknown, schema: TSchema): unknown {
  const branch = branchFor(schema as JsonSchema, value);
  if (branch === undefined) return value;
  if (Array.isArray(value)) {
    const items = branch.items as JsonSchema | undefined;
    return items === undefined ? value : value.map((item) => orderLikeSchema(item, items));
  }
  if (!isPlainObject(value) || branch.properties === undefined) return value;
  const properties = branch.properties;
  // No prototype: a key such as "__proto__" stays an ordinary key.
  const ordered: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(properties)) {
    if (Object.hasOwn(value, key)) ordered[key] = orderLikeSchema(value[key], properties[key] as TSchema);
  }
  for (const key of Object.keys(value).sort()) {
    if (!Object.hasOwn(properties, key)) ordered[key] = value[key];
  }
  return ordered;
}

// fast-check arbitraries driven by JSON Schema: values the schema accepts, values it refuses, and
// values chosen to hurt (huge, deeply nested, odd unicode, prototype-pollution keys).
import fc from 'fast-check';
import type { JsonSchema } from './openapi.js';

/** Known-good values by field name (ids that exist), so that requests reach past the 404s. */
export type Pools = Record<string, readonly string[]>;

const huge = (n: number) => 'x'.repeat(n);

/** Strings that have broken parsers, databases and loggers before. */
export const nastyStrings: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '\u202eevil',
  '\ufeffbom',
  'e\u0301\u0301\u0301',
  '𝕏🏳️‍🌈👩‍👩‍👧‍👦',
  '\u2028\u2029',
  '\r\n\t',
  'null',
  'true',
  'undefined',
  '0',
  '-1',
  '-0',
  '1e309',
  'NaN',
  'Infinity',
  '0x1f',
  '9'.repeat(400),
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  "'; DROP TABLE members; --",
  '" OR 1=1 --',
  '%',
  '%zz',
  '%00',
  '../../etc/passwd',
  '..',
  '\\',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, meant literally
  '${7*7}',
  '<script>alert(1)</script>',
  'urn:uuid:00000000-0000-4000-8000-000000000000',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF',
  '2026-02-30T00:00:00Z',
  '2026-11-21T18:00:00.000+25:00',
  '275760-09-13T00:00:00.001Z',
  '-271821-04-20T00:00:00Z',
  // Full-text operators of both engines (search: they must stay plain text).
  'a NEAR/2 b',
  'NEAR(a b, 3)',
  '{title}: x OR y',
  '^start',
  'x AND NOT y',
  "'a' & !'b' | 'c':*A",
  'a <-> b <2> c',
  '"unclosed -"x" y*',
  '(((( ))))',
  '- * " : ^',
  'mailto:a@b',
  'javascript:alert(1)',
  'a@b',
  '@',
  huge(300),
  huge(5000),
];

/** Strings safe to put into a URL unencoded (printable ASCII), to reach the raw parsers. */
export const rawUrlStrings: readonly string[] = [
  '%',
  '%zz',
  '%00',
  '%E0%A4%A',
  '%2e%2e',
  '..',
  '%2F',
  'a%20b',
  '+',
  '&&',
  '==',
  '#frag',
  ';x',
];

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...nastyStrings) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 64 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 200_000 }).map(huge) },
);

/** A JSON value nested `depth` levels deep, as an array or object chain. */
const deepNest = (depth: number, asObject: boolean): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = asObject ? { a: value } : [value];
  return value;
};

/** A value of the wrong JSON type (or shape) for any field. */
export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 1e308, -0, [], {}, [null], { '': '' }),
  fc.integer(),
  fc.double(),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  fc.constantFrom(5, 50, 500, 1000).chain((depth) => fc.boolean().map((asObject) => deepNest(depth, asObject))),
);

/** Anything hostile: a bad string or a value of the wrong type. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof({ weight: 3, arbitrary: hostileString }, { weight: 2, arbitrary: wrongType });

/** Keys that try to pollute prototypes or confuse merges. */
export const pollutionKeys = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '', 'extra'] as const;

function stringArb(schema: JsonSchema): fc.Arbitrary<string> {
  const maxLength = Math.min(schema.maxLength ?? 40, 60);
  const minLength = schema.minLength ?? 0;
  switch (schema.format) {
    case 'uuid':
      return fc.uuid({ version: 4 });
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'email':
      return fc.stringMatching(/^[a-z0-9]{1,12}$/).map((local) => `${local}@fuzz.example.org`);
    case 'uri':
      return fc.webUrl({ validSchemes: ['https', 'http'] }).filter((url) => url.length <= (schema.maxLength ?? 2048));
  }
  if (schema.pattern) {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? 2048));
  }
  return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
}

/** A value the schema accepts (pooled ids first, where the field name has a pool). */
export function validValue(schema: JsonSchema, pools: Pools, name = '', depth = 0): fc.Arbitrary<unknown> {
  const pool = pools[name];
  const own = schemaValue(schema, pools, depth);
  return pool && pool.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: own }) : own;
}

function schemaValue(schema: JsonSchema, pools: Pools, depth: number): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return fc.oneof(...variants.map((variant) => schemaValue(variant, pools, depth)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringArb(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validValue(schema.items ?? {}, pools, '', depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, 4)),
      });
    case 'object':
      return objectValue(schema, pools, depth, 0);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * An object after the schema with a share of its fields hostile (`hostility` 0: none), a required
 * field sometimes missing, and sometimes an extra or prototype-polluting key.
 */
export function objectValue(schema: JsonSchema, pools: Pools, depth: number, hostility: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(schema.properties ?? {});
  const required = schema.required ?? [];
  const field = (name: string, propertySchema: JsonSchema) =>
    hostility > 0 && depth < 4
      ? fc.oneof(
          { weight: 12, arbitrary: validValue(propertySchema, pools, name, depth + 1) },
          { weight: hostility, arbitrary: hostileValue },
          { weight: hostility, arbitrary: nestedHostile(propertySchema, pools, depth, hostility) },
        )
      : validValue(propertySchema, pools, name, depth + 1);
  const full = fc.record(Object.fromEntries(properties.map(([name, s]) => [name, field(name, s)])), {
    requiredKeys: required.filter((name) => properties.some(([p]) => p === name)),
  });
  // Few optional fields at a time (fast-check favours short arrays): rules between fields that the
  // schema cannot say ("exactly one of", "only with") are then met often enough to reach success.
  const optional = properties.map(([name]) => name).filter((name) => !required.includes(name));
  const record =
    optional.length === 0
      ? full
      : fc.tuple(full, fc.uniqueArray(fc.constantFrom(...optional), { maxLength: optional.length })).map(([value, kept]) => {
          const result: Record<string, unknown> = { ...(value as Record<string, unknown>) };
          for (const name of optional) if (!kept.includes(name)) delete result[name];
          return result;
        });
  if (hostility === 0) return record as fc.Arbitrary<Record<string, unknown>>;
  const drop = fc.option(fc.constantFrom(...(required.length > 0 ? required : [''])), { freq: 8 });
  const extras = fc.array(fc.tuple(fc.constantFrom(...pollutionKeys), hostileValue), { maxLength: 2 });
  const withExtras = fc.oneof({ weight: 8, arbitrary: fc.constant([] as [string, unknown][]) }, { weight: hostility, arbitrary: extras });
  return fc.tuple(record, drop, withExtras).map(([value, dropped, more]) => {
    const result: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    if (dropped) delete result[dropped];
    // defineProperty, not assignment: `result.__proto__ = x` would set the prototype instead of a key.
    for (const [key, extra] of more)
      Object.defineProperty(result, key, { value: extra, enumerable: true, configurable: true, writable: true });
    return result;
  });
}

function nestedHostile(schema: JsonSchema, pools: Pools, depth: number, hostility: number): fc.Arbitrary<unknown> {
  if (schema.type === 'object' || schema.properties) return objectValue(schema, pools, depth + 1, hostility);
  if (schema.type === 'array') return fc.array(hostileValue, { maxLength: 12 });
  return hostileValue;
}

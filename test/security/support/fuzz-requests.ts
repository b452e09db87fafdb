// Requests generated from one operation of the OpenAPI document: valid and hostile path, query,
// header and body values, duplicated and polluting query keys, wrong and missing content types.
import fc from 'fast-check';
import { hostileValue, nastyStrings, objectValue, type Pools, pollutionKeys, rawUrlStrings, validValue, wrongType } from './arbitraries.js';
import type { Operation, Parameter } from './openapi.js';

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

export interface FuzzContext {
  pools: Pools;
  /** Authorization header values: a key of an enterprise community and one of a free community. */
  enterpriseAuth: string;
  freeAuth: string;
  /** One Idempotency-Key shared by many requests, to provoke replays and 422s. */
  sharedIdempotencyKey: string;
}

/** A URL component: encoded, or (for printable ASCII oddities) raw, to reach the raw parsers. */
interface UrlPart {
  text: string;
  raw: boolean;
}

const asText = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined'));
/** Percent-encoding of the UTF-8 bytes (lone surrogates become U+FFFD, as any HTTP client would send them). */
const percentEncode = (text: string) =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
const encodePart = (part: UrlPart) => (part.raw ? part.text : percentEncode(part.text));
const printable = /^[\x20-\x7e]*$/;
const dotSegment = /^(\.|%2e){1,2}$/i;

/** A path or query value: valid for the schema, or (in proportion to `hostility`) hostile or raw. */
function urlValue(parameter: Parameter, pools: Pools, hostility: number): fc.Arbitrary<UrlPart> {
  const valid = validValue(parameter.schema, pools, parameter.name).map((v) => ({ text: asText(v), raw: false }));
  if (hostility === 0) return valid;
  return fc.oneof(
    { weight: 10, arbitrary: valid },
    { weight: hostility, arbitrary: hostileValue.map((v) => ({ text: asText(v), raw: false })) },
    { weight: 1, arbitrary: fc.constantFrom(...rawUrlStrings).map((text) => ({ text, raw: true })) },
  );
}

/** Query pairs: each documented parameter absent, once, or repeated; plus polluting extra keys. */
function queryArb(parameters: Parameter[], pools: Pools, hostility: number): fc.Arbitrary<[string, UrlPart][]> {
  const perParameter = parameters.map((parameter) =>
    fc
      .oneof(
        { weight: 4, arbitrary: fc.constant([] as UrlPart[]) },
        { weight: 6, arbitrary: urlValue(parameter, pools, hostility).map((v) => [v]) },
        { weight: hostility, arbitrary: fc.array(urlValue(parameter, pools, hostility), { minLength: 2, maxLength: 3 }) },
      )
      .map((values) => values.map((value): [string, UrlPart] => [parameter.name, value])),
  );
  const extraKey = fc.constantFrom(
    ...pollutionKeys.filter(Boolean),
    '__proto__[polluted]',
    'constructor[prototype][polluted]',
    'page[]',
    'per_page[a]',
    'a[b][c][d][e][f]',
    'unknown_param',
  );
  const anyValue = urlValue({ name: '', in: 'query', required: false, schema: {} }, pools, hostility);
  const extras = fc.oneof(
    { weight: 6, arbitrary: fc.constant([] as [string, UrlPart][]) },
    { weight: hostility, arbitrary: fc.array(fc.tuple(extraKey, anyValue), { maxLength: 2 }) },
  );
  return fc.tuple(fc.tuple(...perParameter), extras).map(([lists, more]) => [...lists.flat(), ...more]);
}

/** Form encoding of any JSON value: nested keys in brackets, arrays as repeated keys. */
export function toForm(value: unknown, prefix = '', params = new URLSearchParams()): URLSearchParams {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      if (typeof item === 'object' && item !== null) toForm(item, `${prefix}[${index}]`, params);
      else params.append(prefix || 'value', item === null ? '' : String(item));
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) toForm((value as Record<string, unknown>)[key], prefix ? `${prefix}[${key}]` : key, params);
  } else {
    params.append(prefix || 'value', value === null || value === undefined ? '' : String(value));
  }
  return params;
}

const malformedBodies = [
  '{',
  '{"email":',
  'nul',
  '\u0000',
  '\ufeff{}',
  '{"a":1}}',
  '[]',
  '"just a string"',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '{"user":{"__proto__":{"polluted":1}}}',
  `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
  `{"email":"${'x'.repeat(1_100_000)}"}`,
  '%%%&&&===',
  'user[__proto__][polluted]=1',
  'email=a%40b.org&email=c%40d.org&full_name=A+B',
];

const otherContentTypes = [
  'text/plain',
  'application/json; charset=utf-16',
  'application/JSON',
  'application/json;;;',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  '',
];

/** The body part: content type and payload (or neither). */
function bodyArb(operation: Operation, pools: Pools, hostility: number): fc.Arbitrary<{ contentType?: string; payload?: string }> {
  const body = operation.body;
  if (hostility === 0) {
    if (!body) return fc.constant({});
    return fc
      .tuple(fc.constantFrom(...body.contentTypes), objectValue(body.schema, pools, 0, 0))
      .map(([contentType, value]) => encode(contentType, value));
  }
  const anyType = fc.constantFrom(...otherContentTypes, 'application/json');
  const raw = fc.record({ contentType: anyType, payload: fc.constantFrom(...malformedBodies) });
  if (!body) {
    // Bodiless operations: mostly no body, sometimes one they never asked for.
    return fc.oneof({ weight: 8, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: raw });
  }
  const structured = fc
    .tuple(fc.constantFrom(...body.contentTypes), objectValue(body.schema, pools, 0, hostility))
    .map(([contentType, value]) => encode(contentType, value));
  const wrongTopLevel = fc
    .tuple(fc.constantFrom(...body.contentTypes), wrongType)
    .map(([contentType, value]) => encode(contentType, value));
  const mislabelled = fc
    .tuple(anyType, objectValue(body.schema, pools, 0, 0))
    .map(([contentType, value]) => ({ contentType, payload: JSON.stringify(value) }));
  return fc.oneof(
    { weight: 14, arbitrary: structured },
    { weight: 1, arbitrary: wrongTopLevel },
    { weight: 1, arbitrary: raw },
    { weight: 1, arbitrary: mislabelled },
    { weight: 1, arbitrary: fc.constant({}) },
  );
}

function serialise(contentType: string, value: unknown): string {
  return contentType === 'application/x-www-form-urlencoded' ? toForm(value).toString() : (JSON.stringify(value) ?? 'null');
}

/** Stands for "the length of the file part" in a multipart body (the `size` pool), so some uploads are consistent. */
export const fileLengthMarker = 'fuzz:file-length';
const boundary = 'fuzz-boundary-7f3a';

/** A body of the content type: multipart/form-data gets real parts (`file` as a file part), the others their text. */
function encode(contentType: string, value: unknown): { contentType: string; payload: string } {
  if (contentType !== 'multipart/form-data' || typeof value !== 'object' || value === null || Array.isArray(value))
    return { contentType, payload: serialise(contentType, value) };
  const fields = value as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
  const file = fields.file === undefined ? undefined : text(fields.file);
  const parts = Object.entries(fields).map(([name, v]) => {
    if (name === 'file') return `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload"\r\n\r\n${file}\r\n`;
    const content = v === fileLengthMarker ? String(Buffer.byteLength(file ?? '')) : text(v);
    return `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${content}\r\n`;
  });
  return { contentType: `multipart/form-data; boundary=${boundary}`, payload: `${parts.join('')}--${boundary}--\r\n` };
}

const clip = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…(${text.length} chars)` : text);

/** A short, readable form of a request for failure reports. */
export function summarise(request: FuzzRequest): string {
  return JSON.stringify({ ...request, url: clip(request.url), payload: request.payload === undefined ? undefined : clip(request.payload) });
}

/**
 * Every request the fuzzer may send to the operation: a third clean (every value valid for the
 * schema, so that the success paths and their response schemas are exercised), the rest with
 * some or many hostile parts.
 */
export function requestArb(operation: Operation, context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(0, 1, 3).chain((hostility) => requestOfHostility(operation, context, hostility));
}

function requestOfHostility(operation: Operation, context: FuzzContext, hostility: number): fc.Arbitrary<FuzzRequest> {
  const pathParameters = operation.parameters.filter((p) => p.in === 'path');
  const queryParameters = operation.parameters.filter((p) => p.in === 'query');
  const takesIdempotencyKey = operation.parameters.some((p) => p.in === 'header' && p.name === 'idempotency-key');
  const headerText = fc.constantFrom(
    ...nastyStrings.filter((s) => printable.test(s)),
    'not-a-uuid',
    '"00000000-0000-4000-8000-000000000000"',
  );
  const idempotencyKey = takesIdempotencyKey
    ? fc.oneof(
        { weight: 6, arbitrary: fc.constant(undefined) },
        { weight: 3, arbitrary: fc.uuid({ version: 4 }) },
        { weight: 1, arbitrary: fc.constant(context.sharedIdempotencyKey) },
        { weight: hostility, arbitrary: headerText },
      )
    : fc.constant(undefined);
  return fc
    .record({
      // A whole segment of dots is resolved away by every URL parser (inject's too): it would be another route.
      path: fc.tuple(...pathParameters.map((p) => urlValue(p, context.pools, hostility).filter((part) => !dotSegment.test(part.text)))),
      query: queryArb(queryParameters, context.pools, hostility),
      body: bodyArb(operation, context.pools, hostility),
      authorization: fc.oneof(
        { weight: 9, arbitrary: fc.constant(context.enterpriseAuth) },
        { weight: hostility, arbitrary: fc.constant(context.freeAuth) },
      ),
      idempotencyKey,
      requestId: hostility === 0 ? fc.constant(null) : fc.option(headerText, { freq: 6 }),
    })
    .map(({ path, query, body, authorization, idempotencyKey: key, requestId }) => {
      let url = operation.path;
      pathParameters.forEach((parameter, index) => {
        url = url.replace(`{${parameter.name}}`, encodePart(path[index] as UrlPart));
      });
      if (query.length > 0) url += `?${query.map(([name, value]) => `${percentEncode(name)}=${encodePart(value)}`).join('&')}`;
      const headers: Record<string, string> = { authorization };
      if (key !== undefined) headers['idempotency-key'] = key;
      if (requestId !== null) headers['x-request-id'] = requestId;
      if (body.contentType) headers['content-type'] = body.contentType;
      const request: FuzzRequest = {
        method: operation.method,
        url,
        headers,
        ...(body.payload === undefined ? {} : { payload: body.payload }),
      };
      // fast-check prints counterexamples with this: megabyte payloads would drown the report.
      return Object.defineProperty(request, fc.toStringMethod, { value: () => summarise(request), enumerable: false });
    });
}

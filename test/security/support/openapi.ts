// The OpenAPI document as the fuzzer and the isolation tests read it: operations, their parameters
// and bodies, their documented statuses, and Ajv validators for every documented response.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { TestApp } from '../../support/harness.js';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** The JSON Schema keywords the generators understand (OpenAPI 3.1 schemas are JSON Schema 2020-12). */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
  default?: unknown;
  $ref?: string;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** OpenAPI path template, e.g. `/admin/v0/feeds/{feed_id}`. */
  path: string;
  /** `GET /admin/v0/feeds/{feed_id}`. */
  name: string;
  parameters: Parameter[];
  body: { required: boolean; contentTypes: string[]; schema: JsonSchema } | null;
  /** Documented statuses (the keys of `responses`). */
  statuses: Set<number>;
  /** The media types of statuses documented as a file, not JSON (`GET /activities/export`'s 200). */
  fileTypes: Map<number, string[]>;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, JsonSchema> };
}

interface OperationObject {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}

/** The document exactly as the built app serves it. */
export async function fetchDocument(t: TestApp): Promise<OpenApiDocument> {
  const res = await t.request({ method: 'GET', url: '/admin/v0/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`openapi.json answered ${res.statusCode}`);
  return res.json<OpenApiDocument>();
}

/** Every operation of the document, in document order. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const content = operation.requestBody?.content ?? {};
      const contentTypes = Object.keys(content);
      const firstType = contentTypes[0];
      operations.push({
        method: method.toUpperCase(),
        path,
        name: `${method.toUpperCase()} ${path}`,
        parameters: operation.parameters ?? [],
        body: firstType
          ? { required: operation.requestBody?.required ?? false, contentTypes, schema: content[firstType]?.schema ?? {} }
          : null,
        statuses: new Set(Object.keys(operation.responses).map(Number)),
        fileTypes: new Map(
          Object.entries(operation.responses)
            .map(([status, response]) => [Number(status), Object.keys(response.content ?? {})] as const)
            .filter(([, types]) => types.length > 0 && !types.includes('application/json')),
        ),
      });
    }
  }
  return operations;
}

const pointerEscape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Validates response bodies against the document. The whole document is added to Ajv (2020-12
 * dialect, as OpenAPI 3.1 prescribes) so that `#/components/schemas/...` references resolve.
 */
export class ResponseValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly cache = new Map<string, (data: unknown) => string | null>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(document as unknown as Record<string, unknown>, 'openapi.json');
  }

  /** Null when `body` is a valid response of the operation with this status, else Ajv's complaint. */
  validate(operation: Operation, status: number, body: unknown): string | null {
    const cacheKey = `${operation.name} ${status}`;
    let check = this.cache.get(cacheKey);
    if (!check) {
      const response = this.document.paths[operation.path]?.[operation.method.toLowerCase()]?.responses[String(status)];
      if (!response?.content?.['application/json']) {
        check = () => `no application/json schema documented for ${status}`;
      } else {
        const pointer = [
          'paths',
          operation.path,
          operation.method.toLowerCase(),
          'responses',
          String(status),
          'content',
          'application/json',
          'schema',
        ]
          .map(pointerEscape)
          .join('/');
        const validate = this.ajv.compile({ $ref: `openapi.json#/${pointer}` });
        check = (data) => (validate(data) ? null : this.ajv.errorsText(validate.errors, { dataVar: 'body' }));
      }
      this.cache.set(cacheKey, check);
    }
    return check(body);
  }
}

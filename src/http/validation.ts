import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { createAjv } from '../schemas/ajv.js';
import { ErrorBodySchema } from '../schemas/common.schemas.js';

/** Bodies parsed from form encoding: validated with type coercion, JSON bodies without. */
export const formEncodedBodies = new WeakSet<object>();

function makeAjv(coerce: boolean): Ajv {
  const ajv = createAjv({ coerce, useDefaults: true });
  ajv.addSchema(ErrorBodySchema);
  return ajv;
}

/**
 * Query strings, path and headers are text and are coerced to the schema's types; JSON bodies
 * are not (a JSON `"1"` where a number is required is an error), but form-encoded bodies are,
 * since form encoding has no types. Each validator is compiled on its route's first request
 * (see validatorOnFirstCall): compiling all of them up front doubled the start-up time.
 */
export function registerValidation(app: FastifyInstance): void {
  const coercing = makeAjv(true);
  const strict = makeAjv(false);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const coercingValidate = validatorOnFirstCall(() => coercing.compile(schema));
    if (httpPart !== 'body') return coercingValidate;
    const strictValidate = validatorOnFirstCall(() => strict.compile(schema));
    return (data: unknown) => {
      const validate = typeof data === 'object' && data !== null && formEncodedBodies.has(data) ? coercingValidate : strictValidate;
      const valid = validate(data);
      return valid ? { value: data } : { error: Object.assign(new Error('validation'), { validation: validate.errors ?? [] }) };
    };
  });
}

interface Validator {
  (data: unknown): boolean;
  errors?: ValidateFunction['errors'];
}

/** An ajv validator compiled on its first call; like ajv's own, it keeps the last errors on itself (Fastify reads them there). */
function validatorOnFirstCall(compile: () => ValidateFunction): Validator {
  let compiled: ValidateFunction | undefined;
  const validator: Validator = (data) => {
    compiled ??= compile();
    const valid = compiled(data) as boolean;
    validator.errors = compiled.errors;
    return valid;
  };
  return validator;
}

const contextNames: Record<string, string> = { querystring: 'query', params: 'path', headers: 'header', body: 'body' };

/** `query.per_page: must be <= 50`: the field and the rule, from the first schema error. */
export function describeValidationError(errors: readonly ErrorObject[] | readonly unknown[], context: string | undefined): string {
  const first = errors[0] as Partial<ErrorObject> | undefined;
  const prefix = contextNames[context ?? ''] ?? context ?? 'request';
  if (!first) return `${prefix}: is invalid`;
  const path = (first.instancePath ?? '')
    .split('/')
    .filter(Boolean)
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : `.${segment.replace(/~1/g, '/').replace(/~0/g, '~')}`))
    .join('');
  const params = (first.params ?? {}) as Record<string, unknown>;
  if (first.keyword === 'required') return `${prefix}${path}.${String(params.missingProperty)}: is required`;
  if (first.keyword === 'additionalProperties') return `${prefix}${path}.${String(params.additionalProperty)}: is not allowed`;
  if (first.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return `${prefix}${path}: must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return `${prefix}${path || ''}: ${first.message ?? 'is invalid'}`;
}

export type { FastifySchema };

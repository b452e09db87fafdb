import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * The one Ajv set-up of the project (formats, no strict mode, first error only): the HTTP layer
 * validates requests with it (coercing query, path, headers and form bodies; defaults applied),
 * the import validates records with it (neither coercion nor defaults: the file is taken as written).
 */
export function createAjv(options: { coerce: boolean; useDefaults: boolean }): Ajv {
  const ajv = new Ajv({
    coerceTypes: options.coerce ? 'array' : false,
    useDefaults: options.useDefaults,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

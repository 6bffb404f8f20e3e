// Request validation compiled from the route schemas. Query strings are coerced (they are text on the wire);
// bodies are not. Errors name every bad field, with paths like `assets[3].name`.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from 'typebox';
import { invalidRequest, validationFailed } from './errors.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const STRICT_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv, { mode: 'full', formats: ['date-time', 'date', 'email', 'uri'] });
  // ajv's own uuid format also accepts a `urn:uuid:` prefix, which PostgreSQL would not.
  ajv.addFormat('uuid', STRICT_UUID);
  return ajv;
}

const queryAjv = makeAjv(true);
const bodyAjv = makeAjv(false);
const cache = new WeakMap<object, ValidateFunction>();

function compile(ajv: Ajv, schema: TSchema): ValidateFunction {
  let validate = cache.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    cache.set(schema, validate);
  }
  return validate;
}

export const isUuid = (value: string) => STRICT_UUID.test(value);

/** A string PostgreSQL cannot store (NUL) or that is not well-formed Unicode (lone surrogates). */
function badText(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (!value.isWellFormed()) return 'must be well-formed Unicode';
  return null;
}

/** Every string in a parsed body that cannot be stored, keyed by path. */
export function findBadText(
  value: unknown,
  path = '',
  found: Record<string, string> = {},
): Record<string, string> {
  if (typeof value === 'string') {
    const problem = badText(value);
    if (problem) found[path || 'body'] = problem;
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => findBadText(item, `${path}[${index}]`, found));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = badText(key);
      if (keyProblem) found[path ? `${path}.?` : '?'] = `property names ${keyProblem}`;
      else findBadText(item, path ? `${path}.${key}` : key, found);
    }
  }
  return found;
}

function pathOf(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  return segments.reduce(
    (path, segment) =>
      /^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment,
    '',
  );
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'format':
      return `must be a valid ${error.params.format}`;
    case 'anyOf':
      return 'has an invalid value';
    default:
      return error.message ?? 'is invalid';
  }
}

export function describeErrors(errors: readonly ErrorObject[]): Record<string, string> {
  const fields: Record<string, string> = {};
  // anyOf (nullable) reports every branch; the first specific message per path is the useful one.
  for (const error of errors) {
    const path = pathOf(error) || 'body';
    if (!(path in fields) || fields[path] === 'has an invalid value') fields[path] = messageOf(error);
  }
  return fields;
}

/** Validates and coerces a query string object in place; throws 400 naming the parameter. */
export function validateQuery(schema: TSchema, query: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(query)) {
    if (!(name in ((schema as { properties?: object }).properties ?? {}))) {
      throw invalidRequest(`Unknown query parameter: ${name}.`, { parameter: name });
    }
    if (Array.isArray(value))
      throw invalidRequest(`Query parameter ${name} may be given once.`, { parameter: name });
    const problem = typeof value === 'string' ? badText(value) : null;
    if (problem) throw invalidRequest(`Query parameter ${name} ${problem}.`, { parameter: name });
  }
  const validate = compile(queryAjv, schema);
  if (!validate(query)) {
    const [parameter, message] = Object.entries(describeErrors(validate.errors ?? []))[0] ?? [
      'query',
      'is invalid',
    ];
    throw invalidRequest(`Query parameter ${parameter} ${message}.`, { parameter });
  }
}

/** Validates a parsed JSON body; throws 400 when it is not an object, 422 with every bad field otherwise. */
export function validateBody(schema: TSchema, body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidRequest('The request body must be a JSON object.');
  }
  const text = findBadText(body);
  const validate = compile(bodyAjv, schema);
  const fields = validate(body) ? {} : describeErrors(validate.errors ?? []);
  Object.assign(fields, text);
  if (Object.keys(fields).length > 0) throw validationFailed(fields);
}

/** Validation for a single value (used by import and upserts, item by item). */
export function checker(schema: TSchema): (value: unknown) => Record<string, string> | null {
  const validate = compile(bodyAjv, schema);
  return (value) => {
    const text = findBadText(value);
    const fields = validate(value) ? {} : describeErrors(validate.errors ?? []);
    Object.assign(fields, text);
    return Object.keys(fields).length > 0 ? fields : null;
  };
}

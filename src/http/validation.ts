// Request validation compiled from the route schemas. Query strings are coerced (they are text on the wire);
// bodies are not. Errors name every bad field, with paths like `assets[3].name`.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { type TSchema, Type } from 'typebox';
import { invalidRequest, validationFailed } from './errors.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const STRICT_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Calendar-checked (2024-02-30 fails) by ajv-formats, and further narrowed to what PostgreSQL accepts: it
// has no year 0000, refuses UTC offsets of 16 hours or more, and reads a leap second only whole
// (23:59:60Z is the next minute's first instant; 23:59:60.5Z is out of range). These used to pass here and
// fail in SQL (500).
const OUT_OF_POSTGRES_RANGE = /^0000|:\d\d(?:\.\d+)?[+-](?:1[6-9]|2\d)|:60\.\d*[1-9]/;
const calendar = (name: 'date' | 'date-time') => {
  const { validate } = fullFormats[name] as { validate: (value: string) => boolean };
  return (value: string) => validate(value) && !OUT_OF_POSTGRES_RANGE.test(value);
};

/** Query values are text: an integer is written in decimal digits (`1e2`, `0x10`, ` 5` are not). */
const DECIMAL_INTEGER = /^-?\d+$/;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    // The schemas are our code (TypeBox): checking them against the JSON Schema meta-schema at every start
    // cost a tenth of a second of start-up for nothing a test would not catch.
    validateSchema: false,
  });
  addFormats(ajv, { mode: 'full', formats: ['email', 'uri'] });
  ajv.addFormat('date', calendar('date'));
  ajv.addFormat('date-time', calendar('date-time'));
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

// Field paths come from the client (`constructor`, `__proto__`, …), so they are collected in Maps: a plain
// object's `in` and `[]=` would see Object.prototype and drop or swallow exactly those fields.
type FieldErrors = Map<string, string>;

/** Every string in a parsed body that cannot be stored, keyed by path. */
export function findBadText(value: unknown, path = '', found: FieldErrors = new Map()): FieldErrors {
  if (typeof value === 'string') {
    const problem = badText(value);
    if (problem) found.set(path || 'body', problem);
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) findBadText(item, `${path}[${index}]`, found);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = badText(key);
      if (keyProblem) found.set(path ? `${path}.?` : '?', `property names ${keyProblem}`);
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

function describe(errors: readonly ErrorObject[], fields: FieldErrors = new Map()): FieldErrors {
  // anyOf (nullable) reports every branch; the first specific message per path is the useful one.
  for (const error of errors) {
    const path = pathOf(error) || 'body';
    if (!fields.has(path) || fields.get(path) === 'has an invalid value') fields.set(path, messageOf(error));
  }
  return fields;
}

export function describeErrors(errors: readonly ErrorObject[]): Record<string, string> {
  return Object.fromEntries(describe(errors));
}

/** Schema errors and unstorable text of one value, or null when it is valid. */
function fieldErrors(validate: ValidateFunction, value: unknown): Record<string, string> | null {
  const fields = validate(value) ? new Map() : describe(validate.errors ?? []);
  for (const [path, problem] of findBadText(value)) fields.set(path, problem);
  return fields.size > 0 ? Object.fromEntries(fields) : null;
}

/** The query schema of a route that takes no parameter: any parameter is unknown. */
export const NO_PARAMETERS = Type.Object({}, { additionalProperties: false });

export const notAnObject = () => invalidRequest('The request body must be a JSON object.');

/** Validates and coerces a query string object in place; throws 400 naming the parameter. */
export function validateQuery(schema: TSchema, query: Record<string, unknown>): void {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  for (const [name, value] of Object.entries(query)) {
    // Own properties only: `constructor` or `toString` are unknown parameters, not inherited ones.
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (!property) throw invalidRequest(`Unknown query parameter: ${name}.`, { parameter: name });
    if (Array.isArray(value))
      throw invalidRequest(`Query parameter ${name} may be given once.`, { parameter: name });
    const problem = typeof value === 'string' ? badText(value) : null;
    if (problem) throw invalidRequest(`Query parameter ${name} ${problem}.`, { parameter: name });
    // ajv's coercion is Number(): it would read `1e2` as 100 and `0x10` as 16.
    if (property.type === 'integer' && typeof value === 'string' && !DECIMAL_INTEGER.test(value))
      throw invalidRequest(`Query parameter ${name} must be an integer.`, { parameter: name });
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
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw notAnObject();
  const fields = fieldErrors(compile(bodyAjv, schema), body);
  if (fields) throw validationFailed(fields);
}

/** Validation for a single value (used by import and upserts, item by item). */
export function checker(schema: TSchema): (value: unknown) => Record<string, string> | null {
  const validate = compile(bodyAjv, schema);
  return (value) => fieldErrors(validate, value);
}

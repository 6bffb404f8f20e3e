// Request validation compiled from the route schemas. Query strings are coerced (they are text on the wire);
// bodies are not. A body's errors are keyed by its field names (`tags`, whatever item failed); values checked
// item by item (import records) are keyed by path (`suppliers[3].tags[0]`).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type addFormatsModule from 'ajv-formats';
import type { fullFormats as FullFormats } from 'ajv-formats/dist/formats.js';
import { type Static, type TSchema, Type } from 'typebox';
import { invalidRequest, validationFailed } from '../contract/errors.js';
import { CONTROLS_REFUSED, WITHOUT_CONTROLS } from '../schema/fields.js';

const STRICT_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Calendar-checked (2024-02-30 fails) by ajv-formats, and further narrowed to what PostgreSQL accepts: it
// has no year 0000, refuses UTC offsets of 16 hours or more, and reads a leap second only whole
// (23:59:60Z is the next minute's first instant; 23:59:60.5Z is out of range). These used to pass here and
// fail in SQL (500).
const OUT_OF_POSTGRES_RANGE = /^0000|:\d\d(?:\.\d+)?[+-](?:1[6-9]|2\d)|:60\.\d*[1-9]/;
const calendar = (formats: typeof FullFormats, name: 'date' | 'date-time') => {
  const { validate } = formats[name] as { validate: (value: string) => boolean };
  return (value: string) => validate(value) && !OUT_OF_POSTGRES_RANGE.test(value);
};

/** Query values are text: an integer is written in decimal digits (`1e2`, `0x10`, ` 5` are not). */
const DECIMAL_INTEGER = /^-?\d+$/;

function makeAjv(coerce: boolean): Ajv {
  // Loaded at the first compile, not at import: the CLI reads the route table that imports this module and
  // validates nothing, and ajv is some sixty files to load.
  const load = createRequire(import.meta.url);
  const { Ajv } = load('ajv') as typeof import('ajv');
  const addFormats = load('ajv-formats') as typeof addFormatsModule.default;
  const { fullFormats } = load('ajv-formats/dist/formats.js') as { fullFormats: typeof FullFormats };
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
  ajv.addFormat('date', calendar(fullFormats, 'date'));
  ajv.addFormat('date-time', calendar(fullFormats, 'date-time'));
  // ajv's own uuid format also accepts a `urn:uuid:` prefix, which PostgreSQL would not.
  ajv.addFormat('uuid', STRICT_UUID);
  return ajv;
}

/** Query strings are coerced, bodies are not; each made at its first use. */
const ajvs: { query?: Ajv; body?: Ajv } = {};
const cache = new WeakMap<object, ValidateFunction>();

function compile(kind: 'query' | 'body', schema: TSchema): ValidateFunction {
  let validate = cache.get(schema);
  if (!validate) {
    ajvs[kind] ??= makeAjv(kind === 'query');
    validate = ajvs[kind].compile(schema);
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

/** Stands in a path for a property name that cannot be shown (it is not text that can be stored). */
const PROPERTY_NAME = Symbol('property name');
/** A property name, an array index, or PROPERTY_NAME. */
type Segment = string | number | typeof PROPERTY_NAME;

interface Problem {
  /** Where, from the validated value down. */
  at: readonly Segment[];
  message: string;
  /** The message for several array items at once ("must be strings"), when it differs. */
  plural?: string;
}

/** Every string in a parsed body that cannot be stored. */
function findBadText(value: unknown, at: readonly Segment[] = [], found: Problem[] = []): Problem[] {
  if (typeof value === 'string') {
    const problem = badText(value);
    if (problem) found.push({ at, message: problem });
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) findBadText(item, [...at, index], found);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = badText(key);
      if (keyProblem) found.push({ at: [...at, PROPERTY_NAME], message: keyProblem });
      else findBadText(item, [...at, key], found);
    }
  }
  return found;
}

function segmentsOf(error: ErrorObject): Segment[] {
  const segments: Segment[] = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  return segments;
}

/** `assets[3].name`; a property name that cannot be shown is `?`. */
function pathText(at: readonly Segment[]): string {
  return at.reduce<string>((path, segment) => {
    if (typeof segment === 'number') return `${path}[${segment}]`;
    const name = segment === PROPERTY_NAME ? '?' : segment;
    return path ? `${path}.${name}` : name;
  }, '');
}

const ARTICLES: Record<string, string> = { integer: 'an', array: 'an', object: 'an', null: '' };

function typeMessages(types: string): Pick<Problem, 'message' | 'plural'> {
  const names = types.split(',');
  const one = names.map((name) => `${ARTICLES[name] ?? 'a'} ${name}`.trim()).join(' or ');
  const many = names.map((name) => (name === 'null' ? name : `${name}s`)).join(' or ');
  return { message: `must be ${one}`, plural: `must be ${many}` };
}

function problemOf(error: ErrorObject): Problem {
  const at = segmentsOf(error);
  switch (error.keyword) {
    case 'required':
      return { at, message: 'is required' };
    case 'additionalProperties':
      return { at, message: 'is not a known field' };
    case 'enum':
      return { at, message: `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}` };
    case 'format':
      return {
        at,
        message: `must be a valid ${error.params.format}`,
        plural: `must each be a valid ${error.params.format}`,
      };
    case 'anyOf':
      return { at, message: 'has an invalid value', plural: 'have an invalid value' };
    case 'type':
      return { at, ...typeMessages(String(error.params.type)) };
    case 'pattern':
      if (error.params.pattern === WITHOUT_CONTROLS) return { at, message: CONTROLS_REFUSED };
      return { at, message: error.message ?? 'is invalid' };
    default:
      return { at, message: error.message ?? 'is invalid' };
  }
}

/** Schema errors and unstorable text of one value, one problem per path. */
function problemsOf(validate: ValidateFunction, value: unknown): Problem[] {
  const found = new Map<string, Problem>();
  // anyOf (nullable) reports every branch; the first specific message per path is the useful one.
  for (const problem of validate(value) ? [] : (validate.errors ?? []).map(problemOf)) {
    const kept = found.get(pathText(problem.at));
    if (!kept || kept.message === 'has an invalid value') found.set(pathText(problem.at), problem);
  }
  for (const problem of findBadText(value)) found.set(pathText(problem.at), problem);
  return [...found.values()];
}

// Field names come from the client (`constructor`, `__proto__`, …): the result is built from entries, never
// by `obj[name] =`, which would see Object.prototype and drop or swallow exactly those fields.

/** Keyed by full path (`suppliers[3].tags[0]`): for values checked item by item (import, asset items). */
function byPath(problems: readonly Problem[]): Record<string, string> {
  return Object.fromEntries(problems.map((problem) => [pathText(problem.at) || 'body', problem.message]));
}

/** Up to this many item indices are listed in one message; the others are counted. */
const LISTED_ITEMS = 10;

function itemList(indices: readonly number[]): string {
  if (indices.length === 1) return `item ${indices[0]}`;
  const listed = indices.slice(0, Math.min(indices.length - 1, LISTED_ITEMS));
  const rest = indices.length - listed.length;
  return `items ${listed.join(', ')} and ${rest === 1 ? indices[indices.length - 1] : `${rest} others`}`;
}

/** `email of items 0 and 2 must be a valid email`: problems inside one field, said in words. */
function inWords(problems: readonly Problem[]): string {
  // Problems in array items group by what is wrong and where inside the item, gathering the item numbers.
  const groups = new Map<string, { inside: readonly Segment[]; problem: Problem; indices: number[] }>();
  const phrases: (string | { inside: readonly Segment[]; problem: Problem; indices: number[] })[] = [];
  for (const problem of problems) {
    const [first, ...inside] = problem.at;
    if (typeof first !== 'number') {
      phrases.push(phrase(problem.at, problem.message));
      continue;
    }
    const key = `${pathText(inside)}\u0000${problem.message}`;
    const group = groups.get(key);
    if (group) group.indices.push(first);
    else {
      const created = { inside, problem, indices: [first] };
      groups.set(key, created);
      phrases.push(created);
    }
  }
  return phrases
    .map((entry) => {
      if (typeof entry === 'string') return entry;
      const { inside, problem, indices } = entry;
      const items = itemList(indices);
      if (inside.length === 0)
        return `${items} ${indices.length > 1 ? (problem.plural ?? problem.message) : problem.message}`;
      return phrase(inside, problem.message, items);
    })
    .join('; ');
}

/** `name of item 0 is required`, `property names in meta must be well-formed Unicode`, `must be a string`. */
function phrase(at: readonly Segment[], message: string, owner?: string): string {
  const unnamed = at[at.length - 1] === PROPERTY_NAME;
  const where = pathText(unnamed ? at.slice(0, -1) : at);
  let subject = unnamed ? (where ? `property names in ${where}` : 'property names') : where;
  if (owner) subject = subject ? `${subject} of ${owner}` : owner;
  return subject ? `${subject} ${message}` : message;
}

/**
 * Keyed by the body's own field names (decision 3: `details.fields` maps each bad field): a problem inside a
 * field (an item of `tags`, a property of an object) is said in that field's message.
 */
function byField(problems: readonly Problem[]): Record<string, string> {
  const fields = new Map<string, Problem[]>();
  for (const problem of problems) {
    const [first, ...inside] = problem.at;
    const name = first === undefined ? 'body' : first === PROPERTY_NAME ? '?' : String(first);
    const relative = { ...problem, at: first === PROPERTY_NAME ? problem.at : inside };
    fields.set(name, [...(fields.get(name) ?? []), relative]);
  }
  return Object.fromEntries([...fields].map(([name, list]) => [name, inWords(list)]));
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
  const [parameter, message] = Object.entries(byField(problemsOf(compile('query', schema), query)))[0] ?? [];
  if (parameter !== undefined)
    throw invalidRequest(`Query parameter ${parameter} ${message}.`, { parameter });
}

/**
 * Validates a parsed JSON body; throws 400 when it is not an object, 422 otherwise with every bad field, keyed
 * by the body's field names.
 */
export function validateBody(schema: TSchema, body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw notAnObject();
  const fields = bodyChecker(schema)(body);
  if (fields) throw validationFailed(fields);
}

/** A body's problems keyed by its field names, or null when it is valid (validateBody; envelopes). */
export function bodyChecker(schema: TSchema): (body: object) => Record<string, string> | null {
  // Compiled at the first check (then cached), so that importing a route module compiles nothing.
  return (body) => {
    const problems = problemsOf(compile('body', schema), body);
    return problems.length > 0 ? byField(problems) : null;
  };
}

/**
 * Validation for a single value, its problems keyed by full path (`tags[0]`), or null when it is valid: for
 * values checked item by item (import records, asset items), whose callers name the item themselves.
 */
export function checker(schema: TSchema): (value: unknown) => Record<string, string> | null {
  return (value) => {
    const problems = problemsOf(compile('body', schema), value);
    return problems.length > 0 ? byPath(problems) : null;
  };
}

/** The same check as `checker`, as a type guard: a value it accepts is the schema's static type. */
export function guard<S extends TSchema>(
  schema: S,
): { problems(value: unknown): Record<string, string> | null; accepts(value: unknown): value is Static<S> } {
  const problems = checker(schema);
  return { problems, accepts: (value): value is Static<S> => problems(value) === null };
}

// Examples generated from the schemas themselves, so that an example can never list a field the schema does
// not have. The values of a resource's fields come from a sample record (a demo record, P88) where one is
// given; otherwise from the schema: its `examples`, its `default` or `minimum`, or a value its format fixes
// (an id, an instant). A free text or number that none of these gives is an error of the build, never a
// placeholder (P121).
import { createHash } from 'node:crypto';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonSchema = { [keyword: string]: unknown };

/** An instant as the service writes it (`iso()` in SQL: microseconds, UTC). */
const INSTANT = '2025-06-02T09:30:00.000000Z';

/** A stable uuid per field name, so examples are reproducible and the ids of different fields differ. */
export function exampleUuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function stringExample(schema: JsonSchema, name: string): string {
  switch (schema.format) {
    case 'uuid':
      return exampleUuid(name);
    case 'date-time':
      return INSTANT;
    case 'date':
      return INSTANT.slice(0, 10);
    case 'email':
      return 'jane.doe@acme.example';
    case 'uri':
      return 'https://acme.example/';
  }
  throw noValue(name);
}

/** The default, else the minimum (counts and scores start there, so derived examples agree). */
function numberExample(schema: JsonSchema, name: string): number {
  if (typeof schema.default === 'number') return schema.default;
  if (typeof schema.minimum === 'number') return schema.minimum;
  throw noValue(name);
}

const noValue = (name: string) =>
  new Error(
    `no example for "${name}": neither a demo record (src/openapi/seed-samples.ts) nor its schema's ` +
      '`examples` gives it a value',
  );

export interface ExampleOptions {
  /** Only required properties (request bodies: the smallest valid request), or all of them (responses). */
  minimal: boolean;
  /** A record whose values an object schema titled `title` shows (a resource and its seed record). */
  sample?: (title: string) => Record<string, unknown> | undefined;
  /** The record the outermost object shows when its schema has no title (a request body of the management
   * API: the record its operation answers with). */
  record?: Record<string, unknown>;
}

/** True when the schema admits null (the `Nullable` union). */
const nullable = (schema: JsonSchema) =>
  schema.type === 'null' ||
  ((schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined)?.some(nullable) === true;

const hasFormat = (schema: JsonSchema, format: string): boolean =>
  schema.format === format ||
  ((schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined)?.some((branch) =>
    hasFormat(branch, format),
  ) === true;

/** A sample record's value as the API writes it: instants with microseconds (`iso()` in SQL). */
function served(schema: JsonSchema, value: unknown): Json {
  if (typeof value === 'string' && hasFormat(schema, 'date-time'))
    return new Date(value).toISOString().replace(/Z$/, '000Z');
  return value as Json;
}

/**
 * An example value of a JSON Schema. `minimal` keeps only required properties (request bodies: the smallest
 * valid request); otherwise every property is shown (responses: what a key with every scope receives). An
 * array of a `oneOf` shows one element of each shape.
 */
export function exampleOf(schema: JsonSchema, options: ExampleOptions, name = ''): Json | undefined {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0] as Json;
  if (schema.const !== undefined) return schema.const as Json;
  if (Array.isArray(schema.enum)) return schema.enum[0] as Json;
  const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (branches) {
    const branch = branches.find((candidate) => candidate.type !== 'null') ?? branches[0];
    return branch ? exampleOf(branch, options, name) : undefined;
  }
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required ?? []) as string[]);
      const record = typeof schema.title === 'string' ? options.sample?.(schema.title) : options.record;
      // A map of arbitrary names (an import document): the record is the example.
      if (record && schema.properties === undefined && schema.patternProperties !== undefined)
        return record as Json;
      const inner = { ...options, record: undefined };
      const value: Record<string, Json> = {};
      for (const [key, property] of Object.entries(properties)) {
        if (options.minimal && !required.has(key)) continue;
        const example =
          record && record[key] !== undefined
            ? served(property, record[key])
            : exampleOf(property, inner, key);
        if (example !== undefined) value[key] = example;
      }
      return value;
    }
    case 'array': {
      if (schema.maxItems === 0) return [];
      const items = (schema.items ?? {}) as JsonSchema;
      const shapes = Array.isArray(items.oneOf) ? (items.oneOf as JsonSchema[]) : [items];
      return shapes.flatMap((shape) => {
        const example = exampleOf(shape, { ...options, record: undefined }, name);
        return example === undefined ? [] : [example];
      });
    }
    case 'string':
      return stringExample(schema, name);
    case 'integer':
      return Math.ceil(numberExample(schema, name));
    case 'number':
      return numberExample(schema, name);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      // No type (an unconstrained value): nothing to show.
      return undefined;
  }
}

/**
 * The answer to a create whose body was `request`: the request's values, the values the service sets whatever
 * the request says (`created`), and every other field as a new record has it: empty (null, `[]`) where the
 * schema allows it, else (the id, the timestamps) the example of the schema.
 */
export function createdExample(
  schema: JsonSchema,
  request: Json | undefined,
  created: Readonly<Record<string, unknown>>,
  options: ExampleOptions,
): Json {
  const full = exampleOf(schema, { ...options, minimal: false }) as Record<string, Json>;
  const given = (request ?? {}) as Record<string, Json>;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const value: Record<string, Json> = {};
  for (const [key, property] of Object.entries(properties)) {
    if (key in given) value[key] = given[key] as Json;
    else if (key in created) value[key] = created[key] as Json;
    else if (nullable(property)) value[key] = null;
    else if (property.type === 'array') value[key] = [];
    else if (key in full) value[key] = full[key] as Json;
  }
  return value;
}

/** JSON Schema keywords holding one subschema, a list of them, or a map of them. */
const ONE = ['items', 'additionalProperties', 'not'];
const LIST = ['anyOf', 'oneOf', 'allOf'];
const MAP = ['properties', 'patternProperties'];

export function mapSubschemas(schema: JsonSchema, map: (child: JsonSchema) => JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  for (const keyword of ONE) {
    const child = schema[keyword];
    if (child && typeof child === 'object') out[keyword] = map(child as JsonSchema);
  }
  for (const keyword of LIST) {
    if (Array.isArray(schema[keyword])) out[keyword] = (schema[keyword] as JsonSchema[]).map(map);
  }
  for (const keyword of MAP) {
    const children = schema[keyword] as Record<string, JsonSchema> | undefined;
    if (children)
      out[keyword] = Object.fromEntries(Object.entries(children).map(([key, child]) => [key, map(child)]));
  }
  return out;
}

/** A TypeBox schema as plain JSON (its symbols and non-enumerable markers dropped). */
export function plain(schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(schema)) as JsonSchema;
}

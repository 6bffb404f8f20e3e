// A resource is defined once: its fields' schemas give validation, the OpenAPI entry, the TypeScript type, and
// its serialization to JSON (no field list is written twice, and a column the schema does not declare can
// never leave the server). Two serializations come from the fields: `json`, SQL that builds the JSON inside
// PostgreSQL (for nesting in aggregates and one-off reads), and `row`, for the hot read paths: a PostgreSQL
// server returns each field as text and Node joins them. Building JSON costs the server more per value
// (json_build_object looks up each value's type on every call) than Node spends escaping strings, so `row`
// serves the same payload for less; PGlite is the other way round (bench/, docs/decisions.md).
// test/serialization.test.ts holds them equal.
import { type TObject, type TSchema, Type } from 'typebox';
import type { Engine } from '../storage/db.js';

export interface FieldSpec<S extends TSchema = TSchema> {
  schema: S;
  /** SQL expression producing the value when it is computed rather than stored (`$t` is the table alias). */
  sql?: string;
  /** Personal field: absent from payloads for keys without pii:read. */
  pii?: boolean;
  /** Stored field that an import record must carry. */
  required?: boolean;
  /** The value a new record starts with when its writer (an API create, an import) gives none. */
  initial?: unknown;
}

export function field<S extends TSchema>(
  schema: S,
  options: Omit<FieldSpec<S>, 'schema'> = {},
): FieldSpec<S> {
  return { schema, ...options };
}

type Properties<F extends Record<string, FieldSpec>> = { [K in keyof F]: F[K]['schema'] };

export interface Resource<F extends Record<string, FieldSpec> = Record<string, FieldSpec>> {
  name: string;
  table: string;
  fields: F;
  /** The public shape, as serialized (pii fields are optional: absent without pii:read). */
  schema: TObject<Properties<F>>;
  /** Stored columns an import or create may set (id and timestamps included). */
  columns: string[];
  /** Whether some field is personal (its payloads depend on pii:read). */
  hasPii: boolean;
  /** The `initial` value of each field that has one. */
  initials: Record<string, unknown>;
  /**
   * The column list of an INSERT of these stored fields, in this order: the names are the fields' own (typed),
   * so a write cannot name a column the resource does not define. Tenant and internal columns come before it.
   */
  columnList(...names: (keyof F & string)[]): string;
  /** `json_build_object(...)::text` over alias `alias`, with or without the personal fields. */
  json(alias: string, options: { pii: boolean }): string;
  /**
   * The same payload as `json`, as the select list and renderer suited to `engine`: on a PostgreSQL server,
   * text columns that Node joins; on PGlite, whose driver decodes every value in JavaScript, the JSON built by
   * the database (one value per row).
   */
  row(alias: string, options: { pii: boolean; engine: Engine }): RowShape;
}

export interface RowShape {
  /** Select list of `width` text columns, one per field. */
  sql: string;
  width: number;
  /** The record's JSON from its `width` cells, starting at `start` of an array-mode row. */
  render(cells: readonly unknown[], start?: number): string;
}

/**
 * How a field travels as text: a stored string as itself, escaped by Node (JSON.stringify escapes exactly the
 * characters json_build_object does); a stored instant through iso(); anything else (numbers, booleans,
 * arrays, objects, dates, computed values) as PostgreSQL's own JSON of the value, copied verbatim.
 */
type TextForm = 'string' | 'instant' | 'json';

function textForm(schema: TSchema): TextForm {
  const s = schema as { type?: string; format?: string; anyOf?: TSchema[] };
  if (s.anyOf) {
    const branches = s.anyOf.filter((branch) => (branch as { type?: string }).type !== 'null');
    return branches.length === 1 ? textForm(branches[0] as TSchema) : 'json';
  }
  if (s.type !== 'string') return 'json';
  if (s.format === 'date-time') return 'instant';
  // A date's text depends on DateStyle; its JSON does not.
  return s.format === 'date' ? 'json' : 'string';
}

function isDateTime(schema: TSchema): boolean {
  const s = schema as { format?: string; anyOf?: TSchema[] };
  return s.format === 'date-time' || (s.anyOf?.some(isDateTime) ?? false);
}

/** The table of each resource, by its name (the title of its schema): the OpenAPI examples show records of
 * that table as the seed generator makes them (src/openapi/seed-samples.ts). */
export const resourceTables = new Map<string, string>();

export function defineResource<F extends Record<string, FieldSpec>>(definition: {
  name: string;
  table: string;
  description?: string;
  fields: F;
}): Resource<F> {
  resourceTables.set(definition.name, definition.table);
  const entries = Object.entries(definition.fields);
  const properties: Record<string, TSchema> = {};
  const required: string[] = [];
  for (const [name, spec] of entries) {
    properties[name] = spec.schema;
    if (!spec.pii) required.push(name);
  }
  const schema = Type.Unsafe({
    type: 'object',
    title: definition.name,
    ...(definition.description ? { description: definition.description } : {}),
    properties,
    required,
    additionalProperties: false,
  }) as unknown as TObject<Properties<F>>;

  const cache = new Map<string, string>();
  const shapes = new Map<string, RowShape>();
  return {
    name: definition.name,
    table: definition.table,
    fields: definition.fields,
    schema,
    columns: entries.filter(([, spec]) => spec.sql === undefined).map(([name]) => name),
    hasPii: entries.some(([, spec]) => spec.pii),
    columnList(...names) {
      for (const name of names)
        if (definition.fields[name]?.sql !== undefined)
          throw new Error(`${definition.name}.${name} is computed: it is not a column`);
      return names.join(', ');
    },
    initials: Object.fromEntries(
      entries.filter(([, spec]) => 'initial' in spec).map(([name, spec]) => [name, spec.initial]),
    ),
    json(alias, { pii }) {
      const cacheKey = `${alias}:${pii}`;
      let sql = cache.get(cacheKey);
      if (!sql) {
        const pairs = entries
          .filter(([, spec]) => pii || !spec.pii)
          .map(([name, spec]) => {
            const expression =
              spec.sql?.replaceAll('$t', alias) ??
              (isDateTime(spec.schema) ? `iso(${alias}.${name})` : `${alias}.${name}`);
            return `'${name}', ${expression}`;
          });
        // json_build_object takes at most 100 arguments: build in chunks and merge.
        const chunks: string[] = [];
        for (let i = 0; i < pairs.length; i += 50)
          chunks.push(`jsonb_build_object(${pairs.slice(i, i + 50).join(', ')})`);
        sql =
          chunks.length === 1
            ? `json_build_object(${pairs.join(', ')})::text`
            : `(${chunks.join(' || ')})::text`;
        cache.set(cacheKey, sql);
      }
      return sql;
    },
    row(alias, { pii, engine }) {
      const cacheKey = `${alias}:${pii}:${engine}`;
      let shape = shapes.get(cacheKey);
      if (!shape && engine === 'pglite') {
        shape = {
          sql: this.json(alias, { pii }),
          width: 1,
          render: (cells, start = 0) => cells[start] as string,
        };
        shapes.set(cacheKey, shape);
      }
      if (!shape) {
        const served = entries.filter(([, spec]) => pii || !spec.pii);
        // A computed value is already what the field serves (an instant already formatted).
        const forms = served.map(([, spec]) => {
          const form = textForm(spec.schema);
          return spec.sql !== undefined && form === 'instant' ? 'string' : form;
        });
        const columns = served.map(([name, spec], i) => {
          const value = spec.sql === undefined ? `${alias}.${name}` : `(${spec.sql.replaceAll('$t', alias)})`;
          if (forms[i] === 'instant') return `iso(${value})`;
          return forms[i] === 'string' ? `${value}::text` : `to_json(${value})::text`;
        });
        // `{"id":`, `,"name":`, …: the text before each value.
        const keys = served.map(([name], i) => `${i === 0 ? '{' : ','}${JSON.stringify(name)}:`);
        const width = served.length;
        shape = {
          sql: columns.join(', '),
          width,
          render(cells, start = 0) {
            if (width === 0) return '{}';
            let out = '';
            for (let i = 0; i < width; i++) {
              const value = cells[start + i];
              out += keys[i];
              if (value === null || value === undefined) out += 'null';
              else if (forms[i] === 'json') out += value as string;
              else if (forms[i] === 'instant') out += `"${value as string}"`;
              else out += JSON.stringify(value);
            }
            return `${out}}`;
          },
        };
        shapes.set(cacheKey, shape);
      }
      return shape;
    },
  };
}

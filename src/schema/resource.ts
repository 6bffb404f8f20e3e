// A resource is defined once: its fields' schemas give validation, the OpenAPI entry, the TypeScript type, and
// its serialization to JSON (no field list is written twice, and a column the schema does not declare can
// never leave the server). Two serializations come from the fields and write the same bytes (P124): `json`,
// SQL that joins the fields' JSON texts inside PostgreSQL (for nesting in aggregates, one-off reads, and every
// read on PGlite), and `row`, for the hot read paths on a server: each field as a text column, joined by Node.
// Turning values into JSON costs a server more (to_json looks up each value's type on every call) than Node
// spends escaping strings, so `row` serves the same bytes for less there; PGlite is the other way round: its
// driver decodes every value in JavaScript, so one text per row is cheapest (bench/, docs/decisions.md).
// Neither uses json_build_object or json_agg, whose text has spaces around `:` and after `,`.
// test/cross-cutting/serialization.test.ts holds the two byte-equal.
import { type TObject, type TSchema, Type } from 'typebox';

/** The two database engines (storage/db.ts), each with its own cheapest form of a row's text. */
export type Engine = 'pglite' | 'postgres';

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
  /**
   * A stored value whose text, as a server's page serves it, the table also keeps in a column PostgreSQL
   * generates as the value is written: `<name>_json` for a document (jsonb) or an array, its JSON (migration
   * 0024, P237); `<name>_iso` for an instant, its iso() (migration 0025, P248). Pages and the JSON that
   * PostgreSQL builds (exports) copy that text instead of converting the value on every read: the conversions
   * were a third (documents) and then half (instants and tags) of a supplier page's statement. Every jsonb
   * field says which it is: `false` where the resource is only served as JSON that PostgreSQL builds (`json()`),
   * which reads the value itself, so a kept text would only widen the rows.
   */
  keptText?: boolean;
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
  /** SQL of the record's JSON text over alias `alias`, with or without the personal fields: what row() renders. */
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
  /** The SQL of each of those columns, in order (`sql` joins them). */
  cells: readonly string[];
  /**
   * The indexes among `cells` of those holding a stored string as it is: the only cells whose text can be
   * anything at all (the others hold JSON, numbers and instants as PostgreSQL writes them).
   */
  strings: readonly number[];
  width: number;
  /**
   * The record's JSON from its `width` cells, starting at `start` of an array-mode row. `plain`: the caller has
   * found that no stored string among the cells holds a character JSON escapes (a packed row, P244), so each is
   * quoted as it is.
   */
  render(cells: readonly unknown[], start?: number, plain?: boolean): string;
  /**
   * The index among the `width` cells of a stored field whose cell is the text a cursor keeps of it (an
   * instant's iso(), an id's text), so a page reads its sort key there rather than selecting it again; none on
   * PGlite, whose one cell is the whole record.
   */
  cell(name: string): number | undefined;
}

/**
 * How a field travels as text: a stored string as itself, escaped as JSON (JSON.stringify in Node and to_json
 * in PostgreSQL escape exactly the same characters); a stored instant through iso(); a number in its shortest
 * form (trim_scale: `134829`, not numeric(16, 2)'s `134829.00`; P125) as numeric's own text, and a boolean as
 * its own text (`true`, `false`), which are their JSON already (P246); anything else (integers, arrays, dates,
 * computed values, stored documents as jsonb prints them) as PostgreSQL's own JSON of the value, copied
 * verbatim.
 */
type TextForm = 'string' | 'instant' | 'number' | 'boolean' | 'json';

function textForm(schema: TSchema): TextForm {
  const s = schema as { type?: string; format?: string; anyOf?: TSchema[] };
  if (s.anyOf) {
    const branches = s.anyOf.filter((branch) => (branch as { type?: string }).type !== 'null');
    return branches.length === 1 ? textForm(branches[0] as TSchema) : 'json';
  }
  if (s.type === 'number') return 'number';
  if (s.type === 'boolean') return 'boolean';
  if (s.type !== 'string') return 'json';
  if (s.format === 'date-time') return 'instant';
  // A date's text depends on DateStyle; its JSON does not.
  return s.format === 'date' ? 'json' : 'string';
}

/** A served field: its name, the SQL of its value over the alias, and how that value travels. */
interface ServedField {
  name: string;
  value: string;
  form: TextForm;
  /** The column holding the value's text as a page serves it, when the table keeps it (FieldSpec.keptText). */
  keptText?: string;
}

function servedFields(entries: [string, FieldSpec][], alias: string, pii: boolean): ServedField[] {
  return entries
    .filter(([, spec]) => pii || !spec.pii)
    .map(([name, spec]) => {
      const form = textForm(spec.schema);
      if (spec.sql === undefined)
        return {
          name,
          value: `${alias}.${name}`,
          form,
          ...(spec.keptText ? { keptText: `${alias}.${name}_${form === 'instant' ? 'iso' : 'json'}` } : {}),
        };
      // A computed value is already what the field serves (an instant already formatted).
      return {
        name,
        value: `(${spec.sql.replaceAll('$t', alias)})`,
        form: form === 'instant' ? 'string' : form,
      };
    });
}

/**
 * SQL of a field's value as JSON should show it: text, an instant's iso(), a number's shortest decimal. A kept
 * text stands for the value (P248): an instant's is its iso(), and a JSON text typed `json` is written by
 * row_to_json as it is, where jsonb and arrays would be converted again.
 */
function valueSql({ value, form, keptText }: ServedField): string {
  if (keptText) return form === 'instant' ? keptText : `${keptText}::json`;
  if (form === 'string') return `${value}::text`;
  if (form === 'instant') return `iso(${value})`;
  return form === 'number' ? `trim_scale(${value}::numeric)` : value;
}

/**
 * SQL of a field's text column: its value; for a stored value whose text the table keeps, that text; for a
 * number or a boolean, its own text (P246: to_json looks up the value's type on every call, a fifth of a supplier
 * page's statement for these two); for any other JSON value, PostgreSQL's JSON of it.
 */
function cellSql(served: ServedField): string {
  if (served.keptText) return served.keptText;
  const value = valueSql(served);
  if (served.form === 'number' || served.form === 'boolean') return `${value}::text`;
  return served.form === 'json' ? `to_json(${value})::text` : value;
}

/**
 * A numeric's text as to_json writes it (P246): a number as it is; NaN, Infinity and -Infinity, which are not
 * JSON numbers, as strings. Every other text of a numeric ends with a digit.
 */
function jsonNumber(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0x30 && last <= 0x39 ? text : `"${text}"`;
}

/** What JSON.stringify escapes in a string: `"`, `\\`, controls, and (any) surrogates, which are rare enough. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are exactly what JSON escapes.
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A string as JSON: quoted as it is when it holds nothing to escape, which a test tells at a third of
 * JSON.stringify's cost on a page's hundreds of short values (P236); escaped by JSON.stringify otherwise.
 */
function jsonString(value: string): string {
  return NEEDS_ESCAPING.test(value) ? JSON.stringify(value) : `"${value}"`;
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
        // row_to_json names each value after its column and writes no whitespace between tokens (P124):
        // the bytes row() renders. Keys are quoted as identifiers, so a keyword can be a field's name.
        const served = servedFields(entries, alias, pii);
        const columns = served.map((field) => `${valueSql(field)} as ${JSON.stringify(field.name)}`);
        sql = `(select row_to_json(fields)::text from (select ${columns.join(', ')}) fields)`;
        cache.set(cacheKey, sql);
      }
      return sql;
    },
    row(alias, { pii, engine }) {
      const cacheKey = `${alias}:${pii}:${engine}`;
      let shape = shapes.get(cacheKey);
      if (!shape && engine === 'pglite') {
        const sql = this.json(alias, { pii });
        shape = {
          sql,
          cells: [sql],
          strings: [],
          width: 1,
          render: (cells, start = 0) => cells[start] as string,
          cell: () => undefined,
        };
        shapes.set(cacheKey, shape);
      }
      if (!shape) {
        const served = servedFields(entries, alias, pii);
        const forms = served.map((f) => f.form);
        // `{"id":`, `,"name":`, …: the text before each value.
        const keys = served.map(({ name }, i) => `${i === 0 ? '{' : ','}${JSON.stringify(name)}:`);
        const width = served.length;
        const stored = new Map(
          served.flatMap(({ name, value, form }, i) =>
            value === `${alias}.${name}` && (form === 'instant' || form === 'string')
              ? [[name, i] as const]
              : [],
          ),
        );
        const cells = served.map(cellSql);
        shape = {
          sql: cells.join(', '),
          cells,
          strings: served.flatMap(({ form }, i) => (form === 'string' ? [i] : [])),
          width,
          cell: (name) => stored.get(name),
          render(cells, start = 0, plain = false) {
            if (width === 0) return '{}';
            let out = '';
            for (let i = 0; i < width; i++) {
              const value = cells[start + i];
              out += keys[i];
              if (value === null || value === undefined) out += 'null';
              else if (forms[i] === 'json' || forms[i] === 'boolean') out += value as string;
              else if (forms[i] === 'number') out += jsonNumber(value as string);
              else if (forms[i] === 'instant') out += `"${value as string}"`;
              else out += plain ? `"${value as string}"` : jsonString(value as string);
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

// A resource is defined once: its fields' schemas give validation, the OpenAPI entry, the TypeScript type, and
// the SQL that serializes rows to JSON inside PostgreSQL (no field list is written twice, and a column the
// schema does not declare can never leave the server).
import { type TObject, type TSchema, Type } from 'typebox';

export interface FieldSpec<S extends TSchema = TSchema> {
  schema: S;
  /** SQL expression producing the value when it is computed rather than stored (`$t` is the table alias). */
  sql?: string;
  /** Personal field: absent from payloads for keys without pii:read. */
  pii?: boolean;
  /** Stored field that an import record must carry. */
  required?: boolean;
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
  /** `json_build_object(...)::text` over alias `alias`, with or without the personal fields. */
  json(alias: string, options: { pii: boolean }): string;
}

function isDateTime(schema: TSchema): boolean {
  const s = schema as { format?: string; anyOf?: TSchema[] };
  return s.format === 'date-time' || (s.anyOf?.some(isDateTime) ?? false);
}

export function defineResource<F extends Record<string, FieldSpec>>(definition: {
  name: string;
  table: string;
  description?: string;
  fields: F;
}): Resource<F> {
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
  return {
    name: definition.name,
    table: definition.table,
    fields: definition.fields,
    schema,
    columns: entries.filter(([, spec]) => spec.sql === undefined).map(([name]) => name),
    hasPii: entries.some(([, spec]) => spec.pii),
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
  };
}

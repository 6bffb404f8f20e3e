// The two common reads, declared: a cursor-paged collection of a resource with its filters, and one record
// by id. Contract only: the query and response schemas, and what the handler module needs to know to bind
// them (the resource, the filters by name). http/list.ts binds the SQL: the predicate of each filter, by the
// same names, and the order.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { type TObject, type TSchema, Type } from 'typebox';
import { CursorParam, collectionSchema, LimitParam } from '../schema/collection.js';
import { DateTime, type Scope } from '../schema/fields.js';
import { FormatParam, OcsfEvent } from '../schema/ocsf.js';
import type { FieldSpec, Resource } from '../schema/resource.js';
import { ErrorSchema } from './errors.js';
import { type ApiKeyAuth, apiKey, type Operation, operation } from './operation.js';

/** What binding a list needs beyond its schemas. */
export interface ListSpec<F extends Record<string, TSchema> = Record<string, TSchema>> {
  resource: Resource;
  /** Equality filters on stored fields of the resource, named after them (their SQL follows from the field). */
  fieldFilters: readonly string[];
  /** Filters with a predicate of their own, which the handler module gives by the same names. */
  filters: F;
  currency: boolean;
  /**
   * `updated_since` (P178): declared on every collection of a resource with a stored `updated_at` (its records
   * change), compared with that column by the binding; the slices write neither.
   */
  updatedSince: boolean;
  /**
   * A resumable feed (decision 13): `next_cursor` on every page that served a row, also the last one, and an
   * empty page echoes the cursor it was given, so a poller stores it and later sees only newer rows.
   */
  feed: boolean;
  /**
   * Whether `format=ocsf` gives each item as an OCSF 1.8.0 event (P185): the handler module then gives the
   * mapping of one item. The format is how items are written, not which: it is no part of a cursor's binding.
   */
  ocsf: boolean;
}

export type ListOperation<
  U extends string = string,
  F extends Record<string, TSchema> = Record<string, TSchema>,
> = Operation<ApiKeyAuth, U, TObject, undefined, undefined> & { readonly list: ListSpec<F> };

/** The media type of a list's whole-collection export (http/export.ts). */
export const NDJSON = 'application/x-ndjson';

const EXPORT_DESCRIPTION =
  'With `Accept: application/x-ndjson`, every matching row instead, one JSON object per ' +
  'line in the same order from one snapshot, ended by a line `{"meta":{"next_cursor":…,"count":…}}` whose ' +
  'cursor continues the list after the export (pass it as `cursor` later to get only what came after), or, ' +
  'when the export fails midway, by a line in the error shape. `limit` does not apply to an export; exports ' +
  'also count against their own hourly budget.';

// The last line of a complete export (P196).
const ExportEnd = Type.Object(
  {
    meta: Type.Object(
      {
        next_cursor: Type.Union([Type.String(), Type.Null()], {
          description:
            'The cursor after the last row exported (the one sent when none was exported; null when neither).',
        }),
        count: Type.Integer({ minimum: 0, description: 'Rows exported.' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'ExportEnd' },
);

/** One line of an export: a record, then the end line, or an error line when the export failed midway. */
function exportLineSchema(item: TSchema): TSchema {
  return Type.Union([item, ExportEnd, ErrorSchema], {
    description:
      'One line: a record; the last line is `ExportEnd`, or an `Error` when the export failed midway.',
  });
}

/** `updated_since`, as every collection of changing records takes it (P178). */
const UpdatedSince = Type.String({
  ...DateTime,
  description:
    'Records whose `updated_at` is at or after this instant (inclusive). Every change of a record moves its ' +
    '`updated_at` to the instant of the transaction that made it: to sync incrementally, pass the time of the ' +
    'previous sync less a margin for transactions still open then, and deduplicate on `id`.',
});

/** Whether a resource's records carry a stored `updated_at`: they change, and their lists take `updated_since`. */
function changes(resource: Resource): boolean {
  const updatedAt = (resource.fields as Record<string, FieldSpec>).updated_at;
  return updatedAt !== undefined && updatedAt.sql === undefined;
}

/**
 * `updated_since` on a list that is not cursor-paged (P227): the same parameter as `listOperation` declares, for
 * a resource of changing records only; the handler binds it with `UPDATED_SINCE_SQL` (http/list.ts).
 */
export function updatedSinceParam(resource: Resource) {
  if (!changes(resource)) throw new Error(`${resource.name} has no stored updated_at to filter`);
  return Type.Optional(UpdatedSince);
}

/** The value a field filters on: its schema without `null` (a filter matches a value, never absence). */
function filterSchema(schema: TSchema): TSchema {
  const { anyOf } = schema as { anyOf?: TSchema[] };
  const values = anyOf?.filter((branch) => (branch as { type?: string }).type !== 'null');
  return values?.length === 1 ? (values[0] as TSchema) : schema;
}

/**
 * GET of a cursor-paged collection: `limit`, `cursor`, then the field filters (each takes its field's own
 * schema: enumeration, format, description, so a filter cannot drift from the field it filters) and the
 * filters of its own.
 */
export function listOperation<
  const U extends string,
  FS extends Record<string, FieldSpec>,
  const F extends Record<string, TSchema> = Record<never, TSchema>,
>(options: {
  id: string;
  path: U;
  scope: Scope;
  tag: string;
  summary: string;
  description?: string;
  resource: Resource<FS>;
  fieldFilters?: readonly (keyof FS & string)[];
  filters?: F;
  currency?: boolean;
  feed?: boolean;
  /** Items can be asked for as OCSF 1.8.0 events (`format=ocsf`, P185). */
  ocsf?: boolean;
}): ListOperation<U, F> {
  const { resource } = options;
  const fieldFilters = options.fieldFilters ?? [];
  const filters = options.filters ?? ({} as F);
  const properties: Record<string, TSchema> = {
    limit: Type.Optional(LimitParam),
    cursor: Type.Optional(CursorParam),
  };
  for (const name of fieldFilters) {
    const spec = resource.fields[name] as FieldSpec;
    if (spec.sql !== undefined)
      throw new Error(`${resource.name}.${name} is computed: it has no column to filter`);
    properties[name] = Type.Optional(filterSchema(spec.schema));
  }
  for (const [name, schema] of Object.entries(filters)) {
    if (name in properties) throw new Error(`${options.id}: the filter ${name} is declared twice`);
    properties[name] = Type.Optional(schema);
  }
  if (options.ocsf) {
    if ('format' in properties) throw new Error(`${options.id}: the filter format is declared twice`);
    properties.format = Type.Optional(FormatParam);
  }
  const updatedSince = changes(resource as unknown as Resource);
  if (updatedSince) {
    if ('updated_since' in properties)
      throw new Error(`${options.id}: updated_since is declared by every list of changing records`);
    properties.updated_since = Type.Optional(UpdatedSince);
  }
  return {
    ...operation({
      id: options.id,
      method: 'GET',
      path: options.path,
      auth: apiKey(options.scope),
      tag: options.tag,
      summary: options.summary,
      description: options.description,
      query: Type.Object(properties, { additionalProperties: false }),
      responses: {
        200: {
          description: options.ocsf
            ? 'A page of results; with `format=ocsf`, each item of `data` is an OCSF 1.8.0 event ' +
              `(\`x-item-formats\`, schema \`OcsfEvent\`). ${EXPORT_DESCRIPTION}`
            : `A page of results. ${EXPORT_DESCRIPTION}`,
          schema: collectionSchema(resource.schema, { currency: options.currency }),
          lines: { mediaType: NDJSON, schema: exportLineSchema(resource.schema) },
          ...(options.ocsf ? { itemFormats: { ocsf: OcsfEvent } } : {}),
        },
      },
    }),
    list: {
      resource: resource as unknown as Resource,
      fieldFilters,
      filters,
      currency: options.currency ?? false,
      updatedSince,
      feed: options.feed ?? false,
      ocsf: options.ocsf ?? false,
    },
  };
}

export type GetOperation<U extends string = string> = Operation<
  ApiKeyAuth,
  U,
  undefined,
  undefined,
  undefined
> & {
  readonly get: { resource: Resource; noun: string };
};

/** GET of one record by id: 404 when it is missing or belongs to another workspace. */
export function getOperation<const U extends `/${string}/:id`>(options: {
  id: string;
  path: U;
  scope: Scope;
  tag: string;
  summary: string;
  resource: Resource;
  /** Name used in the 404 message. */
  noun: string;
}): GetOperation<U> {
  return {
    ...operation({
      id: options.id,
      method: 'GET',
      path: options.path,
      auth: apiKey(options.scope),
      tag: options.tag,
      summary: options.summary,
      responses: { 200: { description: `The ${options.noun}.`, schema: options.resource.schema } },
    }),
    get: { resource: options.resource, noun: options.noun },
  };
}

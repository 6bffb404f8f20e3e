// Cursor-paged collections, declared: a resource, its filters (each a schema and a SQL predicate) and an
// order. One SQL round trip per page: PostgreSQL filters, orders, limits (limit + 1 tells has_more) and
// returns each field as text (Resource.row); Node joins the fields and the rows into the envelope.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { type TOptional, type TSchema, Type } from 'typebox';
import { notFound } from '../contract/errors.js';
import type { Scope } from '../schema/fields.js';
import type { FieldSpec, Resource } from '../schema/resource.js';
import type { TenantDb } from '../storage/tenant.js';
import { CursorParam, collectionSchema, cursorBinding, LimitParam, renderPage, USD } from './pagination.js';
import { type PublicServices, type RouteContext, type RouteDef, route } from './route.js';

export interface Filter {
  schema: TSchema;
  /** SQL predicate over alias `t`; `?` stands for the filter's value. */
  where: string;
}

/** The value a field filters on: its schema without `null` (a filter matches a value, never absence). */
function filterSchema(schema: TSchema): TSchema {
  const { anyOf } = schema as { anyOf?: TSchema[] };
  const values = anyOf?.filter((branch) => (branch as { type?: string }).type !== 'null');
  return values?.length === 1 ? (values[0] as TSchema) : schema;
}

/** The SQL cast a parameter needs to compare with a column of this schema (text needs none). */
function castFor(schema: TSchema): string {
  const { type, format } = schema as { type?: string; format?: string };
  if (format === 'uuid') return '::uuid';
  return type === 'boolean' ? '::boolean' : '';
}

/**
 * Equality filters on stored fields, named after them: each takes its field's own schema (enumeration,
 * format, description), so a filter cannot drift from the field it filters.
 */
export function fieldFilters<F extends Record<string, FieldSpec>, const N extends keyof F & string>(
  resource: Resource<F>,
  names: readonly N[],
): Record<N, Filter> {
  const filters = {} as Record<N, Filter>;
  for (const name of names) {
    const spec = resource.fields[name] as FieldSpec;
    if (spec.sql !== undefined)
      throw new Error(`${resource.name}.${name} is computed: it has no column to filter`);
    const schema = filterSchema(spec.schema);
    filters[name] = { schema, where: `t.${name} = ?${castFor(schema)}` };
  }
  return filters;
}

export interface Ordering {
  /** Instant column the keyset starts with; ties break on id in the same direction (decision 38). */
  column: string;
  direction: 'desc' | 'asc';
}

export const NEWEST_FIRST: Ordering = { column: 'created_at', direction: 'desc' };

export interface ListQuery {
  resource: Resource;
  filters: Record<string, Filter>;
  order: Ordering;
  /** FROM clause with the resource's table as `t` (default: the table alone). */
  from?: string;
}

export interface PageResult {
  items: string[];
  hasMore: boolean;
  /** Sort key of the last row served, for the next cursor. */
  last: [string, string] | null;
}

export async function fetchPage(
  tenant: TenantDb,
  spec: ListQuery,
  args: {
    query: Record<string, unknown>;
    after: readonly (string | number)[] | null;
    limit: number;
    pii: boolean;
  },
): Promise<PageResult> {
  const params: unknown[] = [];
  const next = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = ['t.workspace_id = $ws'];
  for (const [name, filter] of Object.entries(spec.filters)) {
    const value = args.query[name];
    if (value !== undefined) where.push(filter.where.replace('?', next(value)));
  }
  const { column, direction } = spec.order;
  if (args.after) {
    const [at, id] = args.after;
    where.push(
      `(t.${column}, t.id) ${direction === 'desc' ? '<' : '>'} (${next(at)}::timestamptz, ${next(id)}::uuid)`,
    );
  }
  const shape = spec.resource.row('t', { pii: args.pii, engine: tenant.engine });
  // Columns 0 and 1: the row's sort key, for the next cursor; then the resource's fields.
  const sql = `select iso(t.${column}), t.id::text, ${shape.sql}
    from ${spec.from ?? `${spec.resource.table} t`}
    where ${where.join(' and ')}
    order by t.${column} ${direction}, t.id ${direction}
    limit ${next(args.limit + 1)}`;
  const rows = await tenant.queryArrays(sql, params);
  const hasMore = rows.length > args.limit;
  const served = hasMore ? rows.slice(0, args.limit) : rows;
  const lastRow = served[served.length - 1];
  return {
    items: served.map((row) => shape.render(row, 2)),
    hasMore,
    last: lastRow ? [lastRow[0] as string, lastRow[1] as string] : null,
  };
}

export function listRoute<const U extends string>(options: {
  url: U;
  operationId: string;
  scope: Scope;
  tag: string;
  summary: string;
  description?: string;
  list: ListQuery;
  currency?: boolean;
  /**
   * A resumable feed (decision 13): `next_cursor` on every page that served a row, also the last one, and an
   * empty page echoes the cursor it was given, so a poller stores it and later sees only newer rows.
   */
  feed?: boolean;
}) {
  const { list } = options;
  const filterSchemas: Record<string, TOptional<TSchema>> = Object.fromEntries(
    Object.entries(list.filters).map(([name, filter]) => [name, Type.Optional(filter.schema)]),
  );
  const query = Type.Object(
    { limit: Type.Optional(LimitParam), cursor: Type.Optional(CursorParam), ...filterSchemas },
    {
      additionalProperties: false,
    },
  );
  const pageSchema = collectionSchema(list.resource.schema, { currency: options.currency });
  return route({
    method: 'GET',
    url: options.url,
    operationId: options.operationId,
    scope: options.scope,
    tag: options.tag,
    summary: options.summary,
    description: options.description,
    query,
    responses: { 200: { description: 'A page of results.', schema: pageSchema } },
    async handler(ctx, { query: q }) {
      const binding = cursorBinding(ctx.key.workspaceId, options.operationId, q);
      const after = q.cursor ? ctx.services.cursors.decode(binding, q.cursor) : null;
      const page = await fetchPage(ctx.tenant, list, {
        query: q,
        after,
        limit: q.limit,
        pii: list.resource.hasPii && ctx.hasScope('pii:read'),
      });
      const lastServed = page.last ? ctx.services.cursors.encode(binding, page.last) : null;
      const nextCursor = options.feed ? (lastServed ?? q.cursor ?? null) : page.hasMore ? lastServed : null;
      return {
        status: 200,
        body: renderPage(page.items, { hasMore: page.hasMore, nextCursor }, options.currency ? USD : ''),
      };
    },
  });
}

/** The JSON of one record of a resource in the caller's workspace, or null. */
export async function readOne(
  tenant: TenantDb,
  resource: Resource,
  id: string,
  pii = false,
): Promise<string | null> {
  const shape = resource.row('t', { pii, engine: tenant.engine });
  const [row] = await tenant.queryArrays(
    `select ${shape.sql} from ${resource.table} t where t.workspace_id = $ws and t.id = $1`,
    [id],
  );
  return row ? shape.render(row) : null;
}

/** GET of one record by id: 404 when it is missing or belongs to another workspace. */
export function getRoute<const U extends `/${string}/:id`>(options: {
  url: U;
  operationId: string;
  scope: Scope;
  tag: string;
  summary: string;
  resource: Resource;
  /** Name used in the 404 message. */
  noun: string;
}): RouteDef<PublicServices, U> {
  return {
    method: 'GET',
    url: options.url,
    operationId: options.operationId,
    scope: options.scope,
    tag: options.tag,
    summary: options.summary,
    responses: { 200: { description: `The ${options.noun}.`, schema: options.resource.schema } },
    async handler(ctx: RouteContext, { params }) {
      const body = await readOne(
        ctx.tenant,
        options.resource,
        params.id,
        options.resource.hasPii && ctx.hasScope('pii:read'),
      );
      if (!body) throw notFound(options.noun);
      return { status: 200, body };
    },
  };
}

// Cursor-paged collections, declared: a resource, its filters (each a schema and a SQL predicate) and an
// order. One SQL round trip per page: PostgreSQL filters, orders, limits (limit + 1 tells has_more) and
// returns each field as text (Resource.row); Node joins the fields and the rows into the envelope.
import { type TOptional, type TSchema, Type } from 'typebox';
import type { Scope } from '../schema/fields.js';
import type { Resource } from '../schema/resource.js';
import type { TenantDb } from '../storage/tenant.js';
import { notFound } from './errors.js';
import { CursorParam, collectionSchema, cursorBinding, LimitParam, renderPage, USD } from './pagination.js';
import { type PublicServices, type RouteContext, type RouteDef, route } from './route.js';

export interface Filter {
  schema: TSchema;
  /** SQL predicate over alias `t`; `?` stands for the filter's value. */
  where: string;
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

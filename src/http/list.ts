// Cursor-paged collections, bound: the SQL of a list operation's filters (by the names its contract gives
// them, contract/list.ts) and its order. One SQL round trip per page: PostgreSQL filters, orders, limits
// (limit + 1 tells has_more) and returns each field as text (Resource.row); Node joins the fields and the rows
// into the envelope.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { TObject, TSchema } from 'typebox';
import { notFound } from '../contract/errors.js';
import type { GetOperation, ListOperation } from '../contract/list.js';
import type { Resource, RowShape } from '../schema/resource.js';
import type { TenantDb } from '../storage/tenant.js';
import { exportList } from './export.js';
import { asksForStream } from './negotiation.js';
import { type Packing, packing, unpackRows } from './packed-rows.js';
import { cursorBinding, filterConditions, renderPage, sqlParameters, USD } from './pagination.js';
import { handle, type Route } from './route.js';

/** The SQL cast a parameter needs to compare with a column of this schema (text needs none). */
function castFor(schema: TSchema): string {
  const { type, format } = schema as { type?: string; format?: string };
  if (format === 'uuid') return '::uuid';
  return type === 'boolean' ? '::boolean' : '';
}

export interface Ordering {
  /** Instant column the keyset starts with; ties break on id in the same direction (decision 38). */
  column: string;
  direction: 'desc' | 'asc';
}

/**
 * The predicate of `updated_since` (P178, P227), over alias `t`: at or after the instant. An index of each table
 * serves it: `(workspace_id, updated_at)`, or the parent's id between the two for a collection of one parent
 * (migrations 0021, 0023).
 */
export const UPDATED_SINCE_SQL = 't.updated_at >= ?::timestamptz';

export const NEWEST_FIRST: Ordering = { column: 'created_at', direction: 'desc' };

export interface ListQuery {
  resource: Resource;
  /** By filter name, a SQL predicate over alias `t`; each `?` stands for the filter's value. */
  filters: Record<string, string>;
  order: Ordering;
}

export interface PageResult {
  items: string[];
  hasMore: boolean;
  /** Sort key of the last row served, for the next cursor. */
  last: [string, string] | null;
}

/** Where a page's cells are, for one row shape and order: made once, not per request. */
interface PageLayout {
  cells: readonly string[];
  /** The index of the record's first cell, and of the sort key's two. */
  start: number;
  atIndex: number;
  idIndex: number;
  packed: Packing;
}

const layouts = new WeakMap<RowShape, Map<string, PageLayout>>();

function pageLayout(shape: RowShape, column: string): PageLayout {
  let byColumn = layouts.get(shape);
  if (!byColumn) {
    byColumn = new Map();
    layouts.set(shape, byColumn);
  }
  let layout = byColumn.get(column);
  if (!layout) {
    // The row's sort key, for the next cursor: read in the served fields' own cells when they hold it (P236),
    // else selected first as columns 0 and 1.
    const atCell = shape.cell(column);
    const idCell = shape.cell('id');
    const keyed = atCell !== undefined && idCell !== undefined;
    const cells = keyed ? shape.cells : [`iso(t.${column})`, 't.id::text', ...shape.cells];
    const strings = keyed ? shape.strings : shape.strings.map((i) => i + 2);
    const [start, atIndex, idIndex] = keyed ? [0, atCell, idCell] : [2, 0, 1];
    layout = { cells, start, atIndex, idIndex, packed: packing(cells, strings) };
    byColumn.set(column, layout);
  }
  return layout;
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
  const { values: params, bind: next } = sqlParameters();
  const where = ['t.workspace_id = $ws', ...filterConditions(spec.filters, args.query, next)];
  const { column, direction } = spec.order;
  if (args.after) {
    const [at, id] = args.after;
    where.push(
      `(t.${column}, t.id) ${direction === 'desc' ? '<' : '>'} (${next(at)}::timestamptz, ${next(id)}::uuid)`,
    );
  }
  const shape = spec.resource.row('t', { pii: args.pii, engine: tenant.engine });
  const { cells, start, atIndex, idIndex, packed } = pageLayout(shape, column);
  const from = `from ${spec.resource.table} t
    where ${where.join(' and ')}
    order by t.${column} ${direction}, t.id ${direction}
    limit ${next(args.limit + 1)}`;
  // On a server, each row packed into one text (P240); a page whose values defeat the packing is read again
  // with one text column per field, as PGlite always reads it (its one column per row is the record's JSON).
  const unpacked =
    tenant.engine === 'postgres'
      ? unpackRows(await tenant.queryArrays(`select ${packed.select} ${from}`, params), packed)
      : undefined;
  const rows = unpacked?.rows ?? (await tenant.queryArrays(`select ${cells.join(', ')} ${from}`, params));
  const hasMore = rows.length > args.limit;
  const served = hasMore ? rows.slice(0, args.limit) : rows;
  const lastRow = served[served.length - 1];
  return {
    items: served.map((row, i) => shape.render(row, start, unpacked?.plain[i])),
    hasMore,
    last: lastRow ? [lastRow[atIndex] as string, lastRow[idIndex] as string] : null,
  };
}

/** The predicates of a list's own filters, by the names its contract declares (a type error when they differ). */
export type FilterSql<O extends ListOperation> = { readonly [K in keyof O['list']['filters']]: string };

/**
 * An item of the native form (as served: after its redaction) written as an OCSF 1.8.0 event of the caller's
 * workspace (src/ocsf/).
 */
export type OcsfMapping = (item: unknown, workspaceId: string) => unknown;

/**
 * Binds a list operation: its order, and the SQL of the filters declared with a predicate of their own. A
 * field filter compares the field's column with the value. With `ocsf`, the mapping of one item that
 * `format=ocsf` applies (P185).
 */
export function handleList<O extends ListOperation>(
  operation: O,
  binding: { order: Ordering; ocsf?: OcsfMapping } & (keyof O['list']['filters'] extends never
    ? { where?: never }
    : { where: FilterSql<O> }),
): Route {
  const { list, id } = operation;
  if (list.ocsf !== (binding.ocsf !== undefined))
    throw new Error(`${id}: an OCSF form needs both the contract's \`ocsf\` and the binding's mapping`);
  const mapOcsf = binding.ocsf;
  const where: Record<string, string> = binding.where ?? {};
  const own = Object.keys(list.filters).sort().join();
  if (Object.keys(where).sort().join() !== own)
    throw new Error(
      `${id}: the SQL of filters [${Object.keys(where)}] does not match the contract's [${own}]`,
    );
  const properties = (operation.query as TObject).properties as Record<string, TSchema>;
  const filters: Record<string, string> = {};
  for (const name of list.fieldFilters)
    filters[name] = `t.${name} = ?${castFor(properties[name] as TSchema)}`;
  Object.assign(filters, where);
  if (list.updatedSince) filters.updated_since = UPDATED_SINCE_SQL;
  const query: ListQuery = { resource: list.resource, filters, order: binding.order };
  return handle(operation as ListOperation, async (ctx, { query: q }) => {
    const cursor = q.cursor as string | undefined;
    // P185: the form of the items is no filter, so a cursor continues across forms.
    const { format, ...filters } = q as typeof q & { format?: string };
    const binding = cursorBinding(ctx.key.workspaceId, id, filters);
    const after = cursor ? ctx.services.cursors.decode(binding, cursor) : null;
    const toOcsf = format === 'ocsf' ? mapOcsf : undefined;
    // The whole collection as a stream (http/export.ts): same filters, scopes, redaction and form.
    if (asksForStream(ctx.request.headers.accept))
      return exportList(ctx, query, {
        query: q,
        after,
        pii: list.resource.hasPii && ctx.hasScope('pii:read'),
        cursorAfter: (last) => (last ? ctx.services.cursors.encode(binding, last) : (cursor ?? null)),
        mapItem: toOcsf && ((item) => toOcsf(item, ctx.key.workspaceId)),
      });
    const page = await fetchPage(ctx.tenant, query, {
      query: q,
      after,
      limit: q.limit,
      pii: list.resource.hasPii && ctx.hasScope('pii:read'),
    });
    const lastServed = page.last ? ctx.services.cursors.encode(binding, page.last) : null;
    const nextCursor = list.feed ? (lastServed ?? cursor ?? null) : page.hasMore ? lastServed : null;
    // Mapped from the item as the native form serves it, so the OCSF form holds nothing the native one withholds.
    const items = toOcsf
      ? page.items.map((item) => JSON.stringify(toOcsf(JSON.parse(item), ctx.key.workspaceId)))
      : page.items;
    return {
      status: 200,
      body: renderPage(items, { hasMore: page.hasMore, nextCursor }, list.currency ? USD : ''),
    };
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

/** Binds a GET of one record by id: 404 when it is missing or belongs to another workspace. */
export function handleGet(operation: GetOperation<`/${string}/:id`>): Route {
  const { resource, noun } = operation.get;
  return handle(operation, async (ctx, { params }) => {
    const body = await readOne(ctx.tenant, resource, params.id, resource.hasPii && ctx.hasScope('pii:read'));
    if (!body) throw notFound(noun);
    return { status: 200, body };
  });
}

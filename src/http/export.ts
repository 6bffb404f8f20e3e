// Whole collections as a stream (issue 27): a cursor-paged list asked for with `Accept: application/x-ndjson`
// answers every row its filters match, one JSON object per line in the list's order, then one last line with
// the cursor a poller resumes from. http/list.ts hooks every list declared with the shared list machinery
// here, so a new list gets its export for free.
//
// - Snapshot: on a PostgreSQL server the rows are read in chunks by keyset inside one read-only REPEATABLE READ
//   transaction, so the whole stream is one snapshot; on the embedded store (one session) each chunk is its own
//   statement, so other requests and writers run between chunks (P194).
// - Backpressure: the next chunk is asked for only once the socket took the previous one (one chunk read ahead),
//   so memory stays flat whatever the size; a client that disconnects, or stops reading for EXPORT_STALL_MS,
//   ends the transaction at once and gives the connection back (P195).
// - Errors: everything that can be refused (filters, cursor, key, budget) is refused before the first byte with
//   the usual error response; a failure after it ends the stream with one error line in the error shape,
//   never a last line that reads as success (P196).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Readable } from 'node:stream';
import { ApiError, errorBody, internalError } from '../contract/errors.js';
import { EXPORTS_AT_ONCE, EXPORTS_PER_PROCESS } from '../contract/limits.js';
import { NDJSON } from '../contract/list.js';
import type { Resource } from '../schema/resource.js';
import type { TenantDb } from '../storage/tenant.js';
import { filterConditions, sqlParameters } from './pagination.js';
import type { RouteContext, RouteReply } from './route.js';

export { asksForStream as wantsStream } from './negotiation.js';

/** Rows read per statement. */
export const EXPORT_CHUNK_ROWS = 1000;

/** How long a client may leave the stream unread before the export is ended and its snapshot released. */
export const EXPORT_STALL_MS = 30_000;

/** What an export reads: the same shape as a list's query (http/list.ts ListQuery). */
export interface ExportQuery {
  resource: Resource;
  /** By filter name, a SQL predicate over alias `t`; `?` stands for the filter's value. */
  filters: Record<string, string>;
  order: { column: string; direction: 'desc' | 'asc' };
}

class ExportAborted extends Error {}

// Exports running in this process, in all and by workspace (P202).
const running = new Map<string, number>();
let runningTotal = 0;

/** The 429 of an export refused because too many run at once: retry in a second. */
export const tooManyExports = () =>
  new ApiError(
    'rate_limit_exceeded',
    `Too many exports at once (at most ${EXPORTS_AT_ONCE} per workspace). Retry after the number of seconds in Retry-After.`,
  );

/**
 * The response body: pushes what the producer sends, and makes it wait while the socket is full. Destroyed
 * (the client went away, or left it unread too long), it makes the producer's next send throw.
 */
class ExportStream extends Readable {
  private waiting: (() => void) | null = null;
  aborted = false;

  constructor(private readonly stallMs: number) {
    super({ highWaterMark: 64 * 1024 });
  }

  override _read(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.aborted = true;
    this._read();
    callback(error);
  }

  /** Resolves once the text is taken and the reader wants more; throws when the export was abandoned. */
  async send(text: string): Promise<void> {
    if (this.aborted) throw new ExportAborted();
    if (this.push(text)) return;
    await new Promise<void>((resolve) => {
      const stalled = setTimeout(() => this.destroy(), this.stallMs);
      this.waiting = () => {
        clearTimeout(stalled);
        resolve();
      };
    });
    if (this.aborted) throw new ExportAborted();
  }

  finish(text: string): void {
    if (this.aborted) return;
    this.push(text);
    this.push(null);
  }
}

export interface ExportArgs {
  query: Record<string, unknown>;
  /** Sort key to start after (the request's cursor, decoded), or null for the start of the list. */
  after: readonly (string | number)[] | null;
  pii: boolean;
  /** The cursor of the last row served (or, with no row, the cursor the client gave, or null). */
  cursorAfter(last: [string, string] | null): string | null;
  /** Writes each record in another form (a list's `format=ocsf`, P185): Node then maps the chunk line by line. */
  mapItem?: ((item: unknown) => unknown) | undefined;
  stallMs?: number;
  chunkRows?: number;
}

/** Streams every row of the list that matches the request's filters (this file's header). */
export async function exportList(
  ctx: RouteContext,
  spec: ExportQuery,
  args: ExportArgs,
): Promise<RouteReply> {
  const chunkRows = args.chunkRows ?? EXPORT_CHUNK_ROWS;
  // A key from the cache is confirmed before the first byte: a revoked key gets its 401, not a stream.
  await ctx.tenant.confirm();
  const workspace = ctx.key.workspaceId;
  if ((running.get(workspace) ?? 0) >= EXPORTS_AT_ONCE || runningTotal >= EXPORTS_PER_PROCESS)
    return {
      status: 429,
      body: errorBody(tooManyExports(), ctx.requestId),
      headers: { 'retry-after': '1' },
    };
  // Counted from here until the export ends (no await between the check and the count).
  const done = () => {
    runningTotal -= 1;
    const left = (running.get(workspace) ?? 1) - 1;
    if (left > 0) running.set(workspace, left);
    else running.delete(workspace);
  };
  const { column, direction } = spec.order;
  const { values: params, bind: next } = sqlParameters();
  const where = ['t.workspace_id = $ws', ...filterConditions(spec.filters, args.query, next)];
  const base = params.length;
  const keyset = `(t.${column}, t.id) ${direction === 'desc' ? '<' : '>'} ($${base + 1}::timestamptz, $${base + 2}::uuid)`;
  const reverse = direction === 'desc' ? 'asc' : 'desc';
  // PostgreSQL writes the chunk's lines as one text value (the records' JSON, the same bytes as a page's,
  // P124), so Node handles one value per chunk rather than a value per field, and the sort key of its last row.
  const json = spec.resource.json('t', { pii: args.pii });
  const sql = (from: boolean) => `with c as (
      select t.${column} as k0, t.id as k1, ${json} as j
        from ${spec.resource.table} t
       where ${[...where, ...(from ? [keyset] : [])].join(' and ')}
       order by t.${column} ${direction}, t.id ${direction}
       limit ${chunkRows})
    select count(*)::int,
           string_agg(j, E'\n' order by k0 ${direction}, k1 ${direction}),
           (select iso(k0) from c order by k0 ${reverse}, k1 ${reverse} limit 1),
           (select k1::text from c order by k0 ${reverse}, k1 ${reverse} limit 1)
      from c`;
  const first = sql(false);
  const rest = sql(true);
  interface Chunk {
    rows: number;
    text: string;
    last: [string, string] | null;
  }
  const chunk = (tenant: TenantDb, after: readonly (string | number)[] | null): Promise<Chunk> => {
    const answer = (
      after ? tenant.queryArrays(rest, [...params, after[0], after[1]]) : tenant.queryArrays(first, params)
    ).then(([row]) => {
      const [rows, text, k0, k1] = (row ?? [0, null, null, null]) as [
        number,
        string | null,
        string | null,
        string | null,
      ];
      const lines = text === null ? '' : `${text}\n`;
      const { mapItem } = args;
      return {
        rows,
        // A record's JSON holds no raw line break (JSON escapes them): each line is one record.
        text: mapItem ? lines.replace(/[^\n]+/g, (line) => JSON.stringify(mapItem(JSON.parse(line)))) : lines,
        last: k0 && k1 ? ([k0, k1] as [string, string]) : null,
      };
    });
    // A chunk read ahead is left behind when the export ends early: its failure must not go unheard (an
    // unhandled rejection ends the process). Whoever awaits it still gets the error.
    answer.catch(() => undefined);
    return answer;
  };

  const body = new ExportStream(args.stallMs ?? EXPORT_STALL_MS);
  let started: (() => void) | undefined;
  const begun = new Promise<void>((resolve) => {
    started = resolve;
  });
  let last: [string, string] | null = null;
  let count = 0;

  const produce = async (tenant: TenantDb) => {
    let pending = chunk(tenant, args.after);
    for (;;) {
      const got = await pending;
      const full = got.rows === chunkRows;
      if (got.last) last = got.last;
      // One chunk read ahead while this one goes to the socket.
      if (full && last) pending = chunk(tenant, last);
      count += got.rows;
      started?.();
      if (got.text) await body.send(got.text);
      if (!full) return;
    }
  };
  running.set(workspace, (running.get(workspace) ?? 0) + 1);
  runningTotal += 1;
  const producing = (
    ctx.tenant.engine === 'postgres' ? ctx.snapshot((tenant) => produce(tenant)) : produce(ctx.tenant)
  ).finally(done);
  // Until the first chunk is read, a failure is an ordinary error response.
  const outcome = await Promise.race([
    begun.then(() => null),
    producing.then(
      () => null,
      (e) => ({ e }),
    ),
  ]);
  if (outcome) throw outcome.e;
  producing.then(
    () => body.finish(`${JSON.stringify({ meta: { next_cursor: args.cursorAfter(last), count } })}\n`),
    (error: unknown) => {
      if (error instanceof ExportAborted || body.aborted) return;
      const answer = error instanceof ApiError ? error : internalError();
      // The message alone: the stack of a driver error says nothing about the request.
      if (!(error instanceof ApiError))
        ctx.request.log.error({ error: (error as Error)?.message }, 'export failed mid-stream');
      body.finish(`${errorBody(answer, ctx.requestId)}\n`);
    },
  );
  return { status: 200, stream: { body, contentType: NDJSON } };
}

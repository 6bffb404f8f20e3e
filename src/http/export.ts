// Whole collections as a stream (issue 27): a cursor-paged list asked for with `Accept: application/x-ndjson`
// answers every row its filters match, one JSON object per line in the list's order, then one last line with
// the cursor a poller resumes from. http/list.ts hooks every list declared with the shared list machinery
// here, so a new list gets its export for free.
//
// - Snapshot: on a PostgreSQL server the rows are read by one COPY inside one read-only REPEATABLE READ
//   transaction, so the whole stream is one snapshot (P235); on the embedded store (one session) they are read
//   in keyset chunks, each its own statement, so other requests and writers run between chunks (P194).
// - Backpressure: the COPY waits while the socket is full; on the embedded store the next chunk is asked for only
//   once the socket took the previous one (one chunk read ahead). Memory stays flat whatever the size; a client
//   that disconnects, or stops reading for EXPORT_STALL_MS, ends the transaction at once and gives the
//   connection back (P195). On a PostgreSQL server the COPY's Buffers are collected every few MB, not left
//   to V8, which would let tens of MB of them pile up first (P245).
// - Errors: everything that can be refused (filters, cursor, key, budget) is refused before the first byte with
//   the usual error response; a failure after it ends the stream with one error line in the error shape,
//   never a last line that reads as success (P196).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Readable } from 'node:stream';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ApiError, errorBody, internalError } from '../contract/errors.js';
import { EXPORTS_AT_ONCE, EXPORTS_PER_PROCESS } from '../contract/limits.js';
import { NDJSON } from '../contract/list.js';
import type { Resource } from '../schema/resource.js';
import type { TenantDb } from '../storage/tenant.js';
import { binaryCopyRows } from './copy-rows.js';
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

/** How much the process's Buffers may grow before an export has them collected (P245). */
export const EXPORT_BUFFER_SLACK = 4 * 1024 * 1024;

// The least memory outside V8's heap (Buffers, mostly) seen since the last collection an export asked for.
let externalFloor = Number.POSITIVE_INFINITY;
let collectYoung: (() => void) | undefined;

/**
 * Has the young generation collected (a scavenge, about a millisecond) once the process's Buffers have grown
 * by EXPORT_BUFFER_SLACK (P245). Each socket read of a COPY is a new Buffer, freed only when a collection
 * finds its small JavaScript object dead; an export allocates too few JavaScript objects to fill the young
 * generation, so without this the Buffers of tens of MB of rows would wait for V8's limit on external memory.
 */
function collectBuffers(): void {
  const external = getHeapStatistics().external_memory;
  externalFloor = Math.min(externalFloor, external);
  if (external < externalFloor + EXPORT_BUFFER_SLACK) return;
  collectYoung ??= youngCollector();
  collectYoung();
  externalFloor = getHeapStatistics().external_memory;
}

function youngCollector(): () => void {
  // `gc` is defined only in contexts made after --expose-gc is set: a context of its own, so the service's
  // global (and every dependency) still has none.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'minor' }) => void;
  return () => gc({ type: 'minor' });
}

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
  async send(text: string | Buffer): Promise<void> {
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

/** Each line of `lines` (records' JSON, one a line) written in another form. */
function mapLines(lines: string, mapItem: (item: unknown) => unknown): string {
  // A record's JSON holds no raw line break (JSON escapes them): each line is one record.
  return lines.replace(/[^\n]+/g, (line) => JSON.stringify(mapItem(JSON.parse(line))));
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
  const order = `order by t.${column} ${direction}, t.id ${direction}`;
  const { mapItem } = args;
  const body = new ExportStream(args.stallMs ?? EXPORT_STALL_MS);
  let started: (() => void) | undefined;
  const begun = new Promise<void>((resolve) => {
    started = resolve;
  });
  let last: [string, string] | null = null;
  let count = 0;

  // On a PostgreSQL server: one COPY of the whole result inside the snapshot (P235), of each record's text
  // columns as a page reads them (P249): PostgreSQL only copies their bytes, in the binary format where each
  // value comes with its length, and Node writes each record's JSON as a page does (the same bytes as `json`,
  // P124). Only whole records are sent, so a failure mid-stream never leaves half of one before its error
  // line. The COPY waits while the socket is full. The last row's sort key is read afterwards in the same
  // snapshot.
  const copied = async (tenant: TenantDb) => {
    const conditions = [...where, ...(args.after ? [keyset] : [])].join(' and ');
    const values = args.after ? [...params, args.after[0], args.after[1]] : params;
    const shape = spec.resource.row('t', { pii: args.pii, engine: 'postgres' });
    const copy = tenant.copyOut(
      `copy (select ${shape.sql} from ${spec.resource.table} t where ${conditions} ${order})
         to stdout (format binary)`,
      values,
    );
    const rows = binaryCopyRows();
    try {
      for await (const chunk of copy as AsyncIterable<Buffer>) {
        started?.();
        collectBuffers();
        // The records' JSON as byte strings (binaryCopyRows), encoded back to the rows' own UTF-8 bytes.
        let lines = '';
        for (const cells of rows(chunk)) lines += `${shape.render(cells)}\n`;
        if (lines === '') continue;
        const bytes = Buffer.from(lines, 'latin1');
        await body.send(mapItem ? mapLines(bytes.toString(), mapItem) : bytes);
      }
    } finally {
      copy.destroy();
    }
    const [key] = await tenant.queryArrays(
      `select iso(t.${column}), t.id::text from ${spec.resource.table} t where ${conditions}
        order by t.${column} ${reverse}, t.id ${reverse} limit 1`,
      values,
    );
    // The COPY's row count arrives with its completion, which the statement above waited for.
    count = copy.rowCount;
    if (key) last = key as [string, string];
    started?.();
  };

  // On the embedded store (one session): chunk by chunk by keyset, other requests between chunks (P194).
  // PostgreSQL writes each record's JSON (the same bytes as a page's, P124) and each chunk's lines as one text
  // value, so Node handles one value per chunk.
  const json = spec.resource.json('t', { pii: args.pii });
  const sql = (from: boolean) => `with c as (
      select t.${column} as k0, t.id as k1, ${json} as j
        from ${spec.resource.table} t
       where ${[...where, ...(from ? [keyset] : [])].join(' and ')}
       ${order}
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
      return {
        rows,
        text: mapItem ? mapLines(lines, mapItem) : lines,
        last: k0 && k1 ? ([k0, k1] as [string, string]) : null,
      };
    });
    // A chunk read ahead is left behind when the export ends early: its failure must not go unheard (an
    // unhandled rejection ends the process). Whoever awaits it still gets the error.
    answer.catch(() => undefined);
    return answer;
  };

  const chunked = async (tenant: TenantDb) => {
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
    ctx.tenant.engine === 'postgres' ? ctx.snapshot((tenant) => copied(tenant)) : chunked(ctx.tenant)
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

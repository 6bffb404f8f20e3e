// One SQL dialect, two engines: PGlite (embedded, in DATA_DIR or in memory) and a PostgreSQL server.
// Both are configured to return the same JS types: timestamps and dates as their PostgreSQL text,
// int8 and numeric as numbers, json as parsed values. Code that formats instants for the API does it in SQL
// (`iso()`), so microseconds survive the round trip and keyset cursors never skip or repeat rows.
// On a PostgreSQL server, statements with parameters are prepared once per connection (named after a hash of
// their text) and keep a generic plan, so the hot paths skip parsing and planning.
import { createHash } from 'node:crypto';
import { existsSync, statfsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { EXPORTS_PER_PROCESS } from '../contract/limits.js';
import type { Engine } from '../schema/resource.js';
import { readTemplate } from './embedded-template.js';
import { DataDirError } from './lock.js';

export interface Queryable {
  /** What answers: it decides how results are best shaped (Resource.row). */
  readonly engine: Engine;
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** Rows as arrays of column values in select-list order: no object per row (the hot read paths). */
  queryArrays(sql: string, params?: readonly unknown[]): Promise<unknown[][]>;
  /**
   * Runs a `COPY ... TO STDOUT` and gives its output as it arrives, as bytes that never become JS strings
   * (a whole-collection export, http/export.ts). Only a transaction on a PostgreSQL server offers it; COPY
   * takes no parameters. Destroying the stream before its end drops the connection (see `transaction`).
   */
  copyOut?(sql: string): CopyOut;
}

/** A COPY's output; `rowCount` is known once it has ended. */
export type CopyOut = Readable & { readonly rowCount: number };

/** Connection use, for /metrics. */
export interface PoolStats {
  /** Open connections (the embedded store has exactly one session). */
  total: number;
  idle: number;
  /** Queries and transactions waiting for a connection. */
  waiting: number;
  max: number;
}

export interface Db extends Queryable {
  poolStats(): PoolStats;
  /** Runs `work` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `work` in one read-only REPEATABLE READ transaction with no statement timeout: one snapshot for as
   * long as a whole-collection export lasts (its own stall guard ends one nobody reads). On a PostgreSQL server
   * it offers `copyOut`, on connections of its own (COPY cannot share a pipelined connection).
   */
  snapshot<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotify` for each NOTIFY on `channel` (delivered at the notifying transaction's commit). Best
   * effort: callers also poll, so a lost connection only delays them. Resolves to the unsubscribe function.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const OID = { int8: 20, numeric: 1700, date: 1082, timestamp: 1114, timestamptz: 1184 } as const;
const asText = (value: string) => value;

// Statement names by text. Bounded: past this many distinct texts, new ones run unnamed (parsed each time).
const statementNames = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 2000;

/** The query of `sql`: named (prepared once per connection) when it has parameters. */
function statement(sql: string, params: readonly unknown[], rowMode?: 'array'): pg.QueryConfig {
  const config: pg.QueryConfig = { text: sql, values: params as unknown[], ...(rowMode ? { rowMode } : {}) };
  // Statements without parameters run through the simple protocol, which also takes scripts (migrations).
  if (params.length === 0) return config;
  let name = statementNames.get(sql);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `s${createHash('sha1').update(sql).digest('base64url')}`;
    statementNames.set(sql, name);
  }
  return name === undefined ? config : { ...config, name };
}

/** The same promise, marked as handled: its rejection still reaches whoever awaits it. */
function observed<T>(result: Promise<T>): Promise<T> {
  result.catch(() => undefined);
  return result;
}

/**
 * Queryable over pg's query function (the pool, or one client inside a transaction). Every statement's promise
 * is observed at once: work that pipelines statements and stops at the first failure (a server restart fails
 * them all) leaves the others behind, and one unobserved rejection would end the process. Their errors still
 * reach whoever awaits them.
 */
function pgQueryable(
  run: (config: pg.QueryConfig) => Promise<pg.QueryResult>,
  copyOut?: (sql: string) => CopyOut,
): Queryable {
  const rows = <R>(config: pg.QueryConfig): Promise<R[]> =>
    observed(run(config).then((answer) => answer.rows as R[]));
  return {
    engine: 'postgres',
    query: <R>(sql: string, params: readonly unknown[] = []) => rows<R>(statement(sql, params)),
    queryArrays: (sql: string, params: readonly unknown[] = []) =>
      rows<unknown[]>(statement(sql, params, 'array')),
    ...(copyOut ? { copyOut } : {}),
  };
}

/**
 * Statements issued together (before control returns to the event loop) leave in one socket write instead of
 * one each: the client's socket stays corked until the next tick. Pipelined statements then cost one system
 * call per round trip, which on a busy machine is a good share of what a write costs.
 */
function batchWrites(client: pg.PoolClient): <T>(issue: () => T) => T {
  // pg keeps its socket on `connection.stream`; without it, statements simply go one write each.
  const socket = (client as unknown as { connection?: { stream?: Partial<Socket> } }).connection?.stream;
  let corked = false;
  return (issue) => {
    if (!corked && socket?.cork && socket.uncork) {
      corked = true;
      socket.cork();
      process.nextTick(() => {
        corked = false;
        socket.uncork?.();
      });
    }
    return issue();
  };
}

class PostgresDb implements Db {
  readonly engine = 'postgres' as const;
  private readonly direct: Queryable;
  /** The connections of snapshots (exports), opened at the first one. */
  private snapshots: pg.Pool | undefined;
  constructor(
    private readonly pool: pg.Pool,
    private readonly clientConfig: pg.ClientConfig,
    private readonly snapshotConnections: number,
  ) {
    this.direct = pgQueryable((config) => pool.query(config));
  }

  poolStats(): PoolStats {
    const { totalCount, idleCount, waitingCount, options } = this.pool;
    return { total: totalCount, idle: idleCount, waiting: waitingCount, max: options.max ?? 10 };
  }

  query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.direct.query<R>(sql, params);
  }

  queryArrays(sql: string, params: readonly unknown[] = []): Promise<unknown[][]> {
    return this.direct.queryArrays(sql, params);
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.inTransaction(this.pool, 'begin', work, false);
  }

  snapshot<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    this.snapshots ??= guardedPool(new pg.Pool({ ...this.clientConfig, max: this.snapshotConnections }));
    return this.inTransaction(
      this.snapshots,
      'begin isolation level repeatable read, read only; set local statement_timeout = 0',
      work,
      true,
    );
  }

  private async inTransaction<T>(
    pool: pg.Pool,
    begin: string,
    work: (tx: Queryable) => Promise<T>,
    copies: boolean,
  ): Promise<T> {
    const client = await pool.connect();
    const send = batchWrites(client);
    // The pool listens for errors of idle clients only. A checked-out one whose server goes away between two
    // statements (a restart: 57P01) emits 'error' with no query to fail, which unheard would end the process;
    // heard, the next statement fails instead, and the client is dropped rather than pooled.
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    // A COPY abandoned before its end (an export whose client went away) would hold the connection until the
    // server had written all of it: its socket is closed instead, which ends the statement and the transaction
    // on the server at once, and the client is dropped rather than pooled.
    const copyOut = (sql: string): CopyOut => {
      const copy = send(() => client.query(copyTo(sql)));
      copy.on('close', () => {
        if (copy.readableEnded) return;
        broken ??= new Error('COPY abandoned before its end');
        (client as unknown as { connection?: { stream?: Socket } }).connection?.stream?.destroy();
      });
      return copy;
    };
    try {
      const run = (config: pg.QueryConfig) => send(() => client.query(config));
      const tx = pgQueryable(run, copies ? copyOut : undefined);
      // BEGIN is not waited for alone: it travels with the transaction's first statements (pipeline mode).
      const [, result] = await Promise.all([send(() => client.query(begin)), work(tx)]);
      const commit = await send(() => client.query('commit'));
      // A statement that failed without being awaited leaves an aborted transaction, whose COMMIT rolls back.
      if (commit.command !== 'COMMIT') throw new Error(`the transaction ended with ${commit.command}`);
      return result;
    } catch (error) {
      await client.query('rollback').catch((rollbackError: Error) => {
        broken ??= rollbackError;
      });
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  // LISTEN needs a session of its own, outside the pool. After a drop it reconnects every second until it
  // succeeds (a restart can take longer than one try) or is unsubscribed.
  async listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
    let client: pg.Client | undefined;
    let closed = false;
    let retry: NodeJS.Timeout | undefined;
    const connect = async (): Promise<void> => {
      const next = new pg.Client(this.clientConfig);
      client = next;
      let lost = false;
      const reconnectLater = () => {
        if (lost) return;
        lost = true;
        next.end().catch(() => undefined);
        if (!closed) retry = setTimeout(() => void connect().catch(() => undefined), 1000);
      };
      next.on('notification', (message) => {
        if (message.channel === channel) onNotify();
      });
      next.on('error', reconnectLater);
      try {
        await next.connect();
        await next.query(`listen ${pg.escapeIdentifier(channel)}`);
      } catch (error) {
        reconnectLater();
        throw error;
      }
      // A notification sent while reconnecting was lost: behave as if one arrived.
      onNotify();
    };
    try {
      await connect();
    } catch (error) {
      // The caller is told at once (and polls); nothing keeps retrying behind its back.
      closed = true;
      clearTimeout(retry);
      throw error;
    }
    return async () => {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.snapshots?.end()]);
  }
}

// A full disk must never reach PGlite: when PostgreSQL cannot create a write-ahead log segment (16 MiB at
// once) it PANICs, and the embedded engine cannot restart as a server would; it spins forever. So the
// embedded store runs no statement (any may write WAL, reads included) while its disk has less than two
// segments free, and says why; it runs them again as soon as space is freed.
const WAL_SEGMENT_BYTES = 16 * 1024 * 1024;
export const EMBEDDED_MIN_FREE_BYTES = 2 * WAL_SEGMENT_BYTES;

export class StorageFullError extends DataDirError {}

const mib = (bytes: number) => Math.floor(bytes / (1024 * 1024));

/** Throws StorageFullError when the file system of `path` (or of its nearest existing parent) is too full. */
export function checkFreeSpace(path: string): void {
  let existing = path;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  const { bavail, bsize } = statfsSync(existing);
  const free = bavail * bsize;
  if (free < EMBEDDED_MIN_FREE_BYTES) {
    throw new StorageFullError(
      `The disk of the embedded database in ${path} has ${mib(free)} MiB free, under the ` +
        `${mib(EMBEDDED_MIN_FREE_BYTES)} MiB it needs to write safely. Free some space and retry.`,
    );
  }
}

export class EmbeddedDb implements Db {
  readonly engine = 'pglite' as const;
  // Queries and transactions started and not yet settled: one runs on the session, the rest wait for it.
  private pending = 0;
  constructor(
    private readonly pglite: PGlite,
    private readonly dataDir: string | undefined,
  ) {}

  poolStats(): PoolStats {
    return { total: 1, idle: this.pending === 0 ? 1 : 0, waiting: Math.max(0, this.pending - 1), max: 1 };
  }

  private async counted<T>(run: () => Promise<T>): Promise<T> {
    if (this.dataDir) checkFreeSpace(this.dataDir);
    this.pending += 1;
    try {
      return await run();
    } finally {
      this.pending -= 1;
    }
  }

  // Observed at once, like the server's statements (pgQueryable).
  query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return observed(this.counted(() => this.pglite.query<R>(sql, params as unknown[])).then((r) => r.rows));
  }

  queryArrays(sql: string, params: readonly unknown[] = []): Promise<unknown[][]> {
    return observed(
      this.counted(() => this.pglite.query<unknown[]>(sql, params as unknown[], { rowMode: 'array' })).then(
        (r) => r.rows,
      ),
    );
  }

  // PGlite has one session: its transaction holds a mutex, and every other query waits for it.
  // Callers keep transactions short and never wait on the network inside one.
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.counted(() =>
      this.pglite.transaction(async (inner) => {
        // Statements the work did not wait for (on a server they travel with the COMMIT) finish before it.
        const issued: Promise<unknown>[] = [];
        const issue = <R>(result: Promise<R>) => {
          issued.push(observed(result));
          return result;
        };
        const result = await work({
          engine: 'pglite',
          query: <R>(sql: string, params: readonly unknown[] = []) =>
            issue(inner.query<R>(sql, params as unknown[]).then((r) => r.rows)),
          queryArrays: (sql: string, params: readonly unknown[] = []) =>
            issue(inner.query<unknown[]>(sql, params as unknown[], { rowMode: 'array' }).then((r) => r.rows)),
        });
        await Promise.all(issued);
        return result;
      }),
    );
  }

  snapshot<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.transaction(async (tx) => {
      await tx.query('set transaction isolation level repeatable read, read only');
      return work(tx);
    });
  }

  async listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
    return this.pglite.listen(channel, () => onNotify());
  }

  /** The whole cluster as a gzipped tarball, as PGlite's `loadDataDir` reads it (embedded-template.ts). */
  async dumpDataDir(): Promise<Buffer> {
    return Buffer.from(await (await this.pglite.dumpDataDir('gzip')).arrayBuffer());
  }

  async close(): Promise<void> {
    await this.pglite.close();
  }
}

const pgParsers = new Map<number, (value: string) => unknown>([
  [OID.int8, Number],
  [OID.numeric, Number],
  [OID.date, asText],
  [OID.timestamp, asText],
  [OID.timestamptz, asText],
]);

/** A pool whose connections' errors never end the process (the statements they run fail on their own). */
function guardedPool(pool: pg.Pool): pg.Pool {
  // A dropped idle connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  // A client's 'error' events reach listeners the pool and the transaction attach only while they hold it.
  // A server going away (a restart: 57P01) can still hit a client outside those windows, and an 'error' no one
  // hears ends the process (seen once in the restart test under load). Each client keeps a listener for its
  // whole life: the statements it runs fail on their own, and a broken client is dropped when released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** `max`: connections of the pool; `snapshots`: of the snapshots (exports, one each) beside it. */
export async function openPostgres(
  url: string,
  options: { max?: number; snapshots?: number } = {},
): Promise<Db> {
  const clientConfig: pg.ClientConfig = {
    connectionString: url,
    // Prepared statements keep one generic plan: every tenant query starts from an index led by workspace_id,
    // and a custom plan per execution (PostgreSQL's choice for keyset pages, whose cursor makes the generic
    // plan look costlier) would plan every page again.
    options: '-c TimeZone=UTC -c statement_timeout=30000 -c plan_cache_mode=force_generic_plan',
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        pgParsers.get(oid) ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  };
  // Pipeline mode: statements issued before the previous one's answer are written at once and answered in
  // order, so a transaction's independent statements cost one round trip (PostgreSQL still runs them one by
  // one, each with its own snapshot).
  const pool = guardedPool(new pg.Pool({ ...clientConfig, pipeline: true, max: options.max ?? 10 }));
  await pool.query('select 1');
  return new PostgresDb(pool, clientConfig, options.snapshots ?? EXPORTS_PER_PROCESS);
}

/**
 * `dataDir` undefined: an in-memory database (tests). `onPanic` is called with the log line of a PostgreSQL
 * PANIC, after which the engine is unusable (and, left alone, spins): the caller should end the process.
 */
export async function openEmbedded(
  dataDir?: string,
  options: { onPanic?: (line: string) => void; template?: boolean } = {},
): Promise<EmbeddedDb> {
  if (dataDir) checkFreeSpace(dataDir);
  const { onPanic, template = true } = options;
  // A new cluster is a copy of the build's template when there is one (embedded-template.ts); PGlite
  // refuses a tarball for a directory that already holds a cluster.
  const fresh = !dataDir || !existsSync(join(dataDir, 'PG_VERSION'));
  const pglite = await PGlite.create(dataDir, {
    loadDataDir: template && fresh ? readTemplate() : undefined,
    onStderr: (line) => {
      if (onPanic && /\bPANIC: /.test(line)) onPanic(line);
      return false;
    },
    parsers: {
      [pgliteTypes.INT8]: Number,
      [pgliteTypes.NUMERIC]: Number,
      [pgliteTypes.DATE]: asText,
      [pgliteTypes.TIMESTAMP]: asText,
      [pgliteTypes.TIMESTAMPTZ]: asText,
    },
  });
  await pglite.exec("set timezone = 'UTC'");
  return new EmbeddedDb(pglite, dataDir);
}

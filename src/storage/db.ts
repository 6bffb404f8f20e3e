// One SQL dialect, two engines: PGlite (embedded, in DATA_DIR or in memory) and a PostgreSQL server.
// Both are configured to return the same JS types: timestamps and dates as their PostgreSQL text,
// int8 and numeric as numbers, json as parsed values. Code that formats instants for the API does it in SQL
// (`iso()`), so microseconds survive the round trip and keyset cursors never skip or repeat rows.
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import pg from 'pg';

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]>;
}

export interface Db extends Queryable {
  readonly engine: 'pglite' | 'postgres';
  /** Runs `work` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const OID = { int8: 20, numeric: 1700, date: 1082, timestamp: 1114, timestamptz: 1184 } as const;
const asText = (value: string) => value;

class PostgresDb implements Db {
  readonly engine = 'postgres' as const;
  constructor(private readonly pool: pg.Pool) {}

  async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    const result = await this.pool.query(sql, params as unknown[]);
    return result.rows as R[];
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      const tx: Queryable = {
        query: async <R>(sql: string, params: readonly unknown[] = []) =>
          (await client.query(sql, params as unknown[])).rows as R[],
      };
      const result = await work(tx);
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

class EmbeddedDb implements Db {
  readonly engine = 'pglite' as const;
  constructor(private readonly pglite: PGlite) {}

  async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    const result = await this.pglite.query<R>(sql, params as unknown[]);
    return result.rows;
  }

  // PGlite has one session: its transaction holds a mutex, and every other query waits for it.
  // Callers keep transactions short and never wait on the network inside one.
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.pglite.transaction(async (inner) =>
      work({
        query: async <R>(sql: string, params: readonly unknown[] = []) =>
          (await inner.query<R>(sql, params as unknown[])).rows,
      }),
    );
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

export async function openPostgres(url: string, options: { max?: number } = {}): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    options: '-c TimeZone=UTC -c statement_timeout=30000',
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        pgParsers.get(oid) ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // A dropped idle connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  await pool.query('select 1');
  return new PostgresDb(pool);
}

/** `dataDir` undefined: an in-memory database (tests). */
export async function openEmbedded(dataDir?: string): Promise<Db> {
  const pglite = await PGlite.create(dataDir, {
    parsers: {
      [pgliteTypes.INT8]: Number,
      [pgliteTypes.NUMERIC]: Number,
      [pgliteTypes.DATE]: asText,
      [pgliteTypes.TIMESTAMP]: asText,
      [pgliteTypes.TIMESTAMPTZ]: asText,
    },
  });
  await pglite.exec("set timezone = 'UTC'");
  return new EmbeddedDb(pglite);
}

// Moving a whole store from one database to another (`tprm store copy`: the embedded store to a PostgreSQL
// server). Nothing here names a table: the tables, their columns, their foreign keys and the sequences are read
// from the source's catalogue, so a new migration's tables and columns are copied without a change here.
// Values travel as their PostgreSQL text (uuid, bytea in hex, timestamps with microseconds, jsonb, bigint,
// numeric all round-trip exactly through text) and are cast back to the column's type on the target, so no
// JavaScript type conversion can alter one. Each table is then verified by its row count and a checksum
// computed by the same SQL on both sides.
import type { Db, Queryable } from './db.js';
import { migrate } from './migrate.js';
import { loadMigrations } from './migrations.js';

/** The migration runner's own record: the target gets it by being migrated, never by copy. */
const MIGRATIONS_TABLE = 'schema_migrations';

/** A table of the store's schema, as its catalogue describes it. */
export interface StoreTable {
  name: string;
  /** Every column, in the table's order, with its type as SQL writes it (`numeric(5,2)`, `text[]`). */
  columns: { name: string; type: string; generated: boolean }[];
  /** Whether a column is an identity column (its insert then overrides the system value). */
  identity: boolean;
  /** The tables its foreign keys point to (itself excluded). */
  references: string[];
  /** Whether it has triggers of its own (not the ones PostgreSQL makes for foreign keys). */
  triggers: boolean;
}

export interface TableCheck {
  table: string;
  rows: number;
  checksum: string;
}

/** Called when the copy starts and after each batch: rows copied so far, of all the tables' rows. */
export type CopyProgress = (copied: number, total: number) => void;

/** The copy was refused before anything was written, or failed and was rolled back. */
export class StoreCopyError extends Error {}

export const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** Session settings that fix how values are written as text, so both sides write a value the same way. */
const TEXT_SETTINGS = [
  "set timezone = 'UTC'",
  "set datestyle = 'ISO, MDY'",
  "set intervalstyle = 'postgres'",
  'set extra_float_digits = 1',
  "set bytea_output = 'hex'",
];

/** A batch of rows carries about this much text (bytea as hex), so PDFs do not fill the memory. */
const BATCH_TEXT_BYTES = 8 * 1024 * 1024;
/** At most this many rows per batch (exported for the test that copies a table in several). */
export const BATCH_MAX_ROWS = 500;

/** The tables of the current schema (the migrations table excluded), parents before the tables that refer to
 * them, so that inserting in this order satisfies every foreign key. */
export async function storeTables(db: Queryable): Promise<StoreTable[]> {
  const rows = await db.query<{
    name: string;
    columns: { name: string; type: string; generated: boolean; identity: boolean }[];
    refs: string[] | null;
    triggers: boolean;
  }>(
    `select c.relname as name,
            (select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod),
                                               'generated', a.attgenerated <> '', 'identity', a.attidentity <> '')
                             order by a.attnum)
               from pg_attribute a
              where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns,
            (select array_agg(distinct p.relname::text)
               from pg_constraint f join pg_class p on p.oid = f.confrelid
              where f.conrelid = c.oid and f.contype = 'f' and f.confrelid <> c.oid) as refs,
            exists (select 1 from pg_trigger g where g.tgrelid = c.oid and not g.tgisinternal) as triggers
       from pg_class c
      where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r' and c.relname <> $1
      order by c.relname`,
    [MIGRATIONS_TABLE],
  );
  const tables = new Map(
    rows.map((row) => [
      row.name,
      {
        name: row.name,
        columns: row.columns.map(({ name, type, generated }) => ({ name, type, generated })),
        identity: row.columns.some((column) => column.identity),
        references: row.refs ?? [],
        triggers: row.triggers,
      },
    ]),
  );
  // Depth-first: a table comes after every table it refers to.
  const ordered: StoreTable[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]) => {
    const table = tables.get(name);
    if (!table || state.get(name) === 'done') return;
    if (state.get(name) === 'visiting')
      throw new StoreCopyError(`The foreign keys of ${[...path, name].join(' → ')} form a cycle.`);
    state.set(name, 'visiting');
    for (const parent of table.references) visit(parent, [...path, name]);
    state.set(name, 'done');
    ordered.push(table);
  };
  for (const name of tables.keys()) visit(name, []);
  return ordered;
}

/** The sequences of the current schema (serial and identity columns use them). */
async function storeSequences(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `select relname as name from pg_class
      where relnamespace = current_schema()::regnamespace and relkind = 'S' order by relname`,
  );
  return rows.map((row) => row.name);
}

/** The applied migration versions, or [] when the database was never migrated. */
export async function appliedMigrations(db: Queryable): Promise<number[]> {
  const [present] = await db.query<{ present: boolean }>('select to_regclass($1) is not null as present', [
    MIGRATIONS_TABLE,
  ]);
  if (!present?.present) return [];
  const rows = await db.query<{ version: number }>(
    `select version from ${MIGRATIONS_TABLE} order by version`,
  );
  return rows.map((row) => row.version);
}

/** The tables of the current schema (any table, ours or not, the migrations table excluded) that hold rows. */
export async function tablesWithRows(db: Queryable): Promise<string[]> {
  const names = await db.query<{ name: string }>(
    `select relname as name from pg_class
      where relnamespace = current_schema()::regnamespace and relkind in ('r', 'p') and relname <> $1
      order by relname`,
    [MIGRATIONS_TABLE],
  );
  if (names.length === 0) return [];
  const checks = names.map(
    ({ name }) => `select ${literal(name)} as name where exists (select 1 from ${quoteIdent(name)})`,
  );
  return (await db.query<{ name: string }>(checks.join(' union all '))).map((row) => row.name);
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Row count and checksum of each table, by the same SQL on either engine: the md5 of the row's text (every
 * column, generated ones included, in the source's column order) per row, the per-row sums sorted bytewise
 * and hashed together. Sorting the sums rather than the rows makes it independent of collations and of
 * the tables' physical order.
 */
export async function tableChecks(db: Queryable, tables: readonly StoreTable[]): Promise<TableCheck[]> {
  const checks: TableCheck[] = [];
  for (const table of tables) {
    const row = `row(${table.columns.map((column) => `t.${quoteIdent(column.name)}`).join(', ')})::text`;
    const [answer] = await db.query<{ rows: string; checksum: string }>(
      `select count(*)::text as rows, md5(coalesce(string_agg(h, '' order by h collate "C"), '')) as checksum
         from (select md5(${row}) as h from ${quoteIdent(table.name)} t) sums`,
    );
    checks.push({ table: table.name, rows: Number(answer?.rows), checksum: answer?.checksum ?? '' });
  }
  return checks;
}

/** What the copy moved: each table's rows and checksum, the same on both sides. */
export interface CopyReport {
  tables: TableCheck[];
  sequences: number;
  /** The migrations the target received before the copy. */
  migrated: string[];
}

const sameColumns = (a: StoreTable, b: StoreTable | undefined) =>
  b !== undefined &&
  JSON.stringify([...a.columns].sort((x, y) => (x.name < y.name ? -1 : 1))) ===
    JSON.stringify([...b.columns].sort((x, y) => (x.name < y.name ? -1 : 1)));

/**
 * Copies every table of `source` into `target`, which must hold no rows: migrated first to this program's
 * schema, then filled in one transaction that also verifies each table before committing, so a failure leaves
 * the target as empty as it was. The source must be at this program's migration level (and not be written
 * meanwhile: the caller holds its lock).
 */
export async function copyStore(
  source: Db,
  target: Db,
  options: { progress?: CopyProgress } = {},
): Promise<CopyReport> {
  const known = loadMigrations().map((migration) => migration.version);
  const sourceLevel = await appliedMigrations(source);
  if (sourceLevel.length === 0) throw new StoreCopyError('The source holds no tprm store (never migrated).');
  if (sourceLevel.join() !== known.join()) {
    const newer = sourceLevel.filter((version) => !known.includes(version));
    throw new StoreCopyError(
      newer.length > 0
        ? `The source has migrations this tprm does not know (${newer.join(', ')}): use the tprm version that wrote it.`
        : `The source is behind this tprm's schema (${known.length - sourceLevel.length} migration(s) pending): ` +
            'run "tprm migrate" on it (or start and stop the server once), then copy.',
    );
  }
  const targetLevel = await appliedMigrations(target);
  const unknown = targetLevel.filter((version) => !known.includes(version));
  if (unknown.length > 0)
    throw new StoreCopyError(
      `The target has migrations this tprm does not know (${unknown.join(', ')}): it belongs to a newer version.`,
    );
  const occupied = await tablesWithRows(target);
  if (occupied.length > 0)
    throw new StoreCopyError(
      `The target is not empty: ${occupied.join(', ')} hold${occupied.length === 1 ? 's' : ''} rows. ` +
        'Copy into a new, empty database.',
    );

  for (const statement of TEXT_SETTINGS) await source.query(statement);
  const tables = await storeTables(source);
  const sequences = await storeSequences(source);
  const expected = await tableChecks(source, tables);

  const migrated = await migrate(target);
  const targetTables = new Map((await storeTables(target)).map((table) => [table.name, table]));
  const differing = tables.filter((table) => !sameColumns(table, targetTables.get(table.name)));
  if (differing.length > 0)
    throw new StoreCopyError(
      `The target's tables differ from the source's after migrating: ${differing.map((t) => t.name).join(', ')}.`,
    );

  const checks = await target.transaction(async (tx) => {
    for (const statement of TEXT_SETTINGS) await tx.query(statement.replace(/^set /, 'set local '));
    // A large table's checksum may take longer than the connection's statement timeout; a lock held by a
    // process already using the target must not make the copy wait forever.
    await tx.query('set local statement_timeout = 0');
    await tx.query("set local lock_timeout = '10s'");
    // Nothing else (a server started on the target too soon) writes to the tables until the copy commits.
    if (tables.length > 0)
      await tx.query(
        `lock table ${tables.map((table) => quoteIdent(table.name)).join(', ')} in access exclusive mode`,
      );
    const late = await tablesWithRows(tx);
    if (late.length > 0) throw new StoreCopyError(`The target received rows meanwhile: ${late.join(', ')}.`);
    // Rows arrive as they were, as pg_dump's --disable-triggers restores them: a trigger is for live writes
    // (one that stamps or chains a row would change what the checksum then compares).
    const triggered = tables
      .filter((table) => targetTables.get(table.name)?.triggers)
      .map((table) => quoteIdent(table.name));
    for (const name of triggered) await tx.query(`alter table ${name} disable trigger user`);
    const total = expected.reduce((sum, check) => sum + check.rows, 0);
    let before = 0;
    options.progress?.(0, total);
    for (const [index, table] of tables.entries()) {
      await copyTable(source, tx, table, (copied) => options.progress?.(before + copied, total));
      before += expected[index]?.rows ?? 0;
    }
    for (const sequence of sequences) {
      const [state] = await source.query<{ last: string; called: boolean }>(
        `select last_value::text as last, is_called as called from ${quoteIdent(sequence)}`,
      );
      await tx.query('select setval($1::regclass, $2::bigint, $3)', [
        quoteIdent(sequence),
        state?.last,
        state?.called,
      ]);
    }
    for (const name of triggered) await tx.query(`alter table ${name} enable trigger user`);
    const copied = await tableChecks(tx, tables);
    const wrong = copied.filter(
      (check, index) => check.rows !== expected[index]?.rows || check.checksum !== expected[index]?.checksum,
    );
    if (wrong.length > 0)
      throw new StoreCopyError(
        `Verification failed for ${wrong.map((check) => check.table).join(', ')}: nothing was kept.`,
      );
    return copied;
  });
  return { tables: checks, sequences: sequences.length, migrated };
}

/** Copies one table in batches read in physical order (`ctid`: the source is not written meanwhile). */
async function copyTable(
  source: Queryable,
  target: Queryable,
  table: StoreTable,
  progress: (copied: number) => void,
): Promise<void> {
  const name = quoteIdent(table.name);
  const columns = table.columns.filter((column) => !column.generated);
  const [size] = await source.query<{ rows: string; bytes: string }>(
    `select count(*)::text as rows, coalesce(sum(octet_length(t::text)), 0)::text as bytes from ${name} t`,
  );
  const averageRow = Number(size?.bytes) / Math.max(Number(size?.rows), 1);
  const batchRows = Math.max(1, Math.min(BATCH_MAX_ROWS, Math.floor(BATCH_TEXT_BYTES / (averageRow + 1))));
  const select = `select t.ctid::text, ${columns.map((column) => `t.${quoteIdent(column.name)}::text`).join(', ')}
                    from ${name} t where t.ctid > $1::tid order by t.ctid limit ${batchRows}`;
  // One statement per batch: each column arrives as a text array, unnested and cast to the column's type.
  const insert = `insert into ${name} (${columns.map((column) => quoteIdent(column.name)).join(', ')})
    ${table.identity ? 'overriding system value' : ''}
    select ${columns.map((column, k) => `v${k}::${column.type}`).join(', ')}
      from unnest(${columns.map((_, k) => `$${k + 1}::text[]`).join(', ')})
        as v(${columns.map((_, k) => `v${k}`).join(', ')})`;
  let after = '(0,0)';
  let copied = 0;
  for (;;) {
    const batch = (await source.queryArrays(select, [after])) as (string | null)[][];
    if (batch.length === 0) return;
    after = batch[batch.length - 1]?.[0] as string;
    await target.query(
      insert,
      columns.map((_, k) => batch.map((row) => row[k + 1] ?? null)),
    );
    copied += batch.length;
    progress(copied);
  }
}

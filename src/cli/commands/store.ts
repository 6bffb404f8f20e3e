// The store itself, offline: `store copy` moves the embedded store of a DATA_DIR to a PostgreSQL server.
import type { Command } from 'commander';
import type { CopyReport } from '../../storage/copy.js';
import { act, type Io } from '../command.js';
import { CliError } from '../errors.js';
import { examples } from '../options.js';
import { count, print, table } from '../output.js';
import { type Progress, progress } from '../progress.js';

interface CopyOptions {
  from?: string;
  to?: string;
}

export function storeCommands(program: Command): void {
  program
    .command('store')
    .description('the database itself, offline (not over HTTP)')
    .addHelpText(
      'after',
      examples(['tprm store copy --from ./data --to postgres://tprm:secret@db.internal:5432/tprm']),
    )
    .command('copy')
    .description('copy everything from the embedded store of a DATA_DIR into an empty PostgreSQL database')
    .option('--from <dir>', 'DATA_DIR of the embedded store (default: $DATA_DIR or ./data)')
    .option('--to <url>', 'postgres:// URL of the target database (default: $DATABASE_URL)')
    .addHelpText(
      'after',
      `
Stop the server first: the copy refuses a DATA_DIR that a running server holds. The target must hold no
rows (a new database, or one only migrated): it is migrated to this version's schema, then every table is
copied in one transaction and verified (row count and checksum per table, computed alike on both sides)
before it commits, so a failure leaves it empty. The DATA_DIR is left as it was. Then start the server
with DATABASE_URL set to the target: the same workspaces, keys, webhooks, events, deliveries, audit
trail, report PDFs and idempotency records answer there. Progress goes to stderr.
${examples([
  'tprm store copy --from ./data --to postgres://tprm:secret@db.internal:5432/tprm',
  'DATABASE_URL=postgres://tprm@db:5432/tprm tprm store copy --json',
])}`,
    )
    .action(act<[], CopyOptions>((io, _args, opts) => copyStore(io, opts)));
}

async function copyStore(io: Io, opts: CopyOptions): Promise<void> {
  const dataDir = opts.from || process.env.DATA_DIR || './data';
  const url = opts.to || process.env.DATABASE_URL;
  if (!url) throw new CliError('Name the target database: --to postgres://… (or set DATABASE_URL).');
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new CliError('--to must be a postgres:// or postgresql:// URL.');
  const [{ resolve }, storage, { openDataDir, openServer }] = await Promise.all([
    import('node:path'),
    import('../../storage/copy.js'),
    import('../database.js'),
  ]);
  const source = await openDataDir(resolve(dataDir), { existing: true });
  try {
    const target = await openServer(url);
    try {
      let bar: Progress | undefined;
      let report: CopyReport;
      try {
        report = await storage.copyStore(source.db, target.db, {
          progress: (copied, total) => {
            bar ??= progress(total, { task: 'copy', unit: 'rows' });
            bar.update(copied);
          },
        });
        bar?.stop(true);
      } catch (error) {
        bar?.stop(false);
        if (error instanceof storage.StoreCopyError) throw new CliError(error.message);
        // Whatever failed inside the copy's transaction (a row the target refused, a lost connection) was
        // rolled back with it.
        throw new CliError(`The copy failed; nothing it wrote was kept: ${(error as Error).message}`);
      }
      const result = { from: source.target, to: target.target, ...report, verified: true };
      print(io, result, () => {
        const rows = report.tables.map((check) => ({ ...check, verified: 'ok' }));
        const copied = rows.reduce((sum, row) => sum + row.rows, 0);
        return (
          `${table(rows, ['table', 'rows', 'checksum', 'verified'])}\n\n` +
          `Copied ${count(copied, 'row')} in ${count(rows.length, 'table')} from ${source.target} to ${target.target}, ` +
          'each table verified by row count and checksum.\nNow start the server with DATABASE_URL set to the target.'
        );
      });
    } finally {
      await target.db.close().catch(() => undefined);
    }
  } finally {
    await source.db.close().catch(() => undefined);
    source.release?.();
  }
}

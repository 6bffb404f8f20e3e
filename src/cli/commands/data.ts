// Data: import a document, seed a demo data set, migrate the database.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { ImportDocument } from '../../seed/index.js';
import { act, type Io } from '../command.js';
import { CliError } from '../errors.js';
import { examples, integer } from '../options.js';
import { count, print, table } from '../output.js';
import type { SeedOptions } from '../seed.js';

export function dataCommands(program: Command): void {
  importCommand(program);
  seedCommand(program);
  program
    .command('migrate')
    .description('apply pending SQL migrations directly to the database (not over HTTP)')
    .addHelpText(
      'after',
      `
Uses DATABASE_URL when set, else the embedded store in DATA_DIR (default ./data). The embedded store
can only be opened by one process: stop the server first. The server also migrates when it starts.
${examples(['tprm migrate', 'DATABASE_URL=postgres://tprm@db:5432/tprm tprm migrate --json'])}`,
    )
    // The database drivers and the seed generator are loaded by the commands that use them.
    .action(act(async (io) => (await import('../migrate.js')).runMigrations(io)));
}

function importCommand(program: Command): void {
  program
    .command('import <workspace-id> <file>')
    .description('import an Import document (JSON) in one transaction (POST /admin/workspaces/{id}/import)')
    .addHelpText(
      'after',
      `
<file> is a JSON object of collections, each an array of records with the public field names (the
ImportDocument of the management API's reference, GET /docs on ADMIN_URL); "-" reads it from stdin. One invalid record fails the whole
import with the offending fields listed. The server takes bodies up to 4 MB; "seed" streams larger sets.
${examples([
  'tprm import 4f6c… suppliers.json',
  `echo '{"suppliers":[{"name":"Acme","domain":"acme.example"}]}' | tprm import 4f6c… -`,
])}`,
    )
    .action(act<[workspaceId: string, file: string]>((io, [id, file]) => importFile(io, id, file)));
}

async function importFile(io: Io, workspaceId: string, file: string): Promise<void> {
  // Sent as read: the import endpoint judges the document itself, record by record.
  const document = (await readJson(file)) as ImportDocument;
  const result = await io.admin.importData({ params: { id: workspaceId }, body: document });
  print(io, result, () => {
    const rows = Object.entries(result.created).map(([collection, created]) => ({ collection, created }));
    const total = rows.reduce((sum, row) => sum + row.created, 0);
    return `${table(rows, ['collection', 'created'])}\n\nImported ${count(total, 'record')} into workspace ${workspaceId}.`;
  });
}

/** Reads a JSON document from a file, or from stdin for `-`. */
async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      text = Buffer.concat(chunks).toString('utf8');
    } else text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file === '-' ? 'stdin' : file} is not valid JSON: ${(error as Error).message}`);
  }
}

function seedCommand(program: Command): void {
  program
    .command('seed <workspace-id>')
    .description(
      'fill a workspace with a realistic demo data set of the chosen size, through the import endpoint',
    )
    .requiredOption('--suppliers <n>', 'number of suppliers; everything else scales with it', integer(0))
    .option(
      '--seed <n>',
      'random seed: the same seed gives the same data',
      integer(-2147483648, 2147483647),
      1,
    )
    .option('--batch-size <n>', 'records per import request (one transaction each)', integer(1, 5000), 1000)
    .addHelpText(
      'after',
      `
Each batch is one import transaction; records only refer to the same or earlier batches. Collections the
server does not accept (yet) are skipped, with a note. Progress goes to stderr: a bar on a terminal,
a line every 2 s otherwise. With --json, stdout gets a summary with the created counts.
${examples(['tprm seed 4f6c… --suppliers 60', 'tprm seed 4f6c… --suppliers 5000 --seed 7 --batch-size 2000 --json'])}`,
    )
    .action(
      act<[workspaceId: string], SeedOptions>(async (io, [id], opts) =>
        (await import('../seed.js')).seed(io, id, opts),
      ),
    );
}

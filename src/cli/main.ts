// tprm: the operator's command line over the management API (management-api.md, "CLI"). Every /admin
// endpoint has a command (cli/commands/, through the typed admin client); `seed` streams demo data through
// the import endpoint; `migrate` applies the SQL migrations straight to the database and `store copy` moves
// the embedded store to a PostgreSQL server. Output is a table for people and the API's JSON with --json; any
// failure exits non-zero with the API's error message and code on stderr (one JSON object with --json).
//
// Exit codes: 0 success, 1 the operation failed (API error, unreachable server, bad file), 2 usage error.
import { existsSync } from 'node:fs';
import { CommanderError } from 'commander';
import { describeError, errorJson } from './errors.js';
import { buildProgram } from './program.js';

async function main(argv: string[]): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  // `tprm … | head` closes the pipe early: that is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed the usage error, the help or the version.
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    // The global options were parsed before any command ran.
    process.stderr.write(program.opts().json ? errorJson(error) : describeError(error));
    process.exitCode = 1;
  }
}

await main(process.argv.slice(2));

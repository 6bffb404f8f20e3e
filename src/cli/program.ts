// The `tprm` program: global options, help, version, and the command groups.
import { Command } from 'commander';
import { packageVersion } from '../version.js';
import { auditCommands } from './commands/audit.js';
import { dataCommands } from './commands/data.js';
import { exportCommand } from './commands/export.js';
import { keyCommands } from './commands/keys.js';
import { lifecycleCommands } from './commands/lifecycle.js';
import { mcpCommand } from './commands/mcp.js';
import { serveCommand } from './commands/serve.js';
import { storeCommands } from './commands/store.js';
import { webhookCommands } from './commands/webhooks.js';
import { workspaceCommands } from './commands/workspaces.js';
import { DEFAULT_ADMIN_URL, examples } from './options.js';

export function buildProgram(): Command {
  const program = new Command('tprm')
    .description('Operate a tprm-api service through its management API (workspaces, keys, webhooks, data).')
    .version(packageVersion(), '-V, --version', 'print the version of tprm')
    .exitOverride()
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(add --help for usage)')
    .option('--admin-url <url>', `management API origin (default: $ADMIN_URL or ${DEFAULT_ADMIN_URL})`)
    .option('--admin-token <token>', 'management API token (default: $ADMIN_TOKEN; prefer the variable)')
    .option('--json', 'print the raw JSON answer instead of tables (for scripts)')
    .addHelpText(
      'after',
      `
Environment:
  ADMIN_URL      management API origin, default ${DEFAULT_ADMIN_URL}
  ADMIN_TOKEN    bearer token of the management API (printed once by the server on first start)
  DATABASE_URL, DATA_DIR   used by "migrate" and "store copy" only
  TPRM_API_URL, TPRM_API_KEY   used by "mcp" and "export" only (the public API and its key)
  A .env file in the current directory is read too; the environment wins.

Exit codes: 0 success, 1 the operation failed (message and API error code on stderr; with --json, one
JSON object {"error": {...}}), 2 usage error.
${examples([
  'export ADMIN_URL=http://127.0.0.1:8081 ADMIN_TOKEN=...',
  'tprm workspaces create --name "Acme Corp" --plan enterprise',
  'tprm keys create <workspace-id> --name ci --scopes all --created-by <user-id>',
  'tprm seed <workspace-id> --suppliers 200',
  'tprm workspaces list --json | jq -r ".data[].id"',
  'tprm --version',
])}`,
    );
  workspaceCommands(program);
  keyCommands(program);
  webhookCommands(program);
  dataCommands(program);
  lifecycleCommands(program);
  auditCommands(program);
  exportCommand(program);
  storeCommands(program);
  mcpCommand(program);
  serveCommand(program);
  return program;
}

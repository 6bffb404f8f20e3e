// tprm: the operator's command line over the management API (management-api.md, "CLI"). Every /admin
// endpoint has a command; `seed` streams demo data through the import endpoint and `migrate` applies the SQL
// migrations straight to the database. Output is a table for people and the API's JSON with --json; any
// failure exits non-zero with the API's error message and code on stderr.
//
// Exit codes: 0 success, 1 the operation failed (API error, unreachable server, bad file), 2 usage error.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import cliProgress from 'cli-progress';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { SCOPES, WebhookEvents } from '../schema/fields.js';
import { countSeedRecords, generateSeedBatches, type ImportDocument } from './seed/index.js';

const DEFAULT_ADMIN_URL = 'http://127.0.0.1:8081';

// ---------------------------------------------------------------- errors

/** A failure to report to the person as is (no stack): exit code 1. `notes` are printed after it. */
class CliError extends Error {
  readonly notes: string[] = [];
}

/** An error answer of the API, in its error shape (risk-data-api.md "Errors"). */
class ApiCallError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

function describeError(error: unknown): string {
  if (!(error instanceof CliError)) return `error: ${(error as Error)?.stack ?? String(error)}\n`;
  const lines = [`error: ${error.message}`];
  if (error instanceof ApiCallError) {
    lines[0] += ` (${error.code}, HTTP ${error.status})`;
    const { fields, ...rest } = error.details ?? {};
    if (fields && typeof fields === 'object')
      for (const [field, problem] of Object.entries(fields)) lines.push(`  ${field}: ${problem}`);
    for (const [key, value] of Object.entries(rest)) lines.push(`  ${key}: ${JSON.stringify(value)}`);
    if (error.requestId) lines.push(`  request id: ${error.requestId}`);
  }
  for (const note of error.notes) lines.push(`note: ${note}`);
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------- HTTP: the one place that talks to the API

interface Globals {
  adminUrl?: string;
  adminToken?: string;
  json?: boolean;
}
type Json = Record<string, unknown>;
type Call = <T = Json>(method: string, path: string, body?: unknown) => Promise<T>;

/** `/admin/workspaces/${id}` with every interpolated value percent-encoded, so an argument cannot escape
 * its path segment. */
const path = (parts: TemplateStringsArray, ...values: string[]): string =>
  parts.reduce((out, part, k) => out + encodeURIComponent(values[k - 1] ?? '') + part);

function connect(globals: Globals): Call {
  const base = (globals.adminUrl || process.env.ADMIN_URL || DEFAULT_ADMIN_URL).replace(/\/+$/, '');
  return async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol))
      throw new CliError(`The admin URL "${base}" is not an http(s) URL (ADMIN_URL or --admin-url).`);
    const token = globals.adminToken || process.env.ADMIN_TOKEN;
    if (!token) {
      throw new CliError(
        'No admin token: set ADMIN_TOKEN (or pass --admin-token). The server prints it on its first start.',
      );
    }
    let response: Response;
    try {
      response = await fetch(`${base}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `Cannot reach the management API at ${base} (${cause?.code ?? cause?.message ?? (error as Error).message}). ` +
          'Is the server running? Set ADMIN_URL or pass --admin-url.',
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new CliError(`Unexpected answer from ${base} (HTTP ${response.status}): ${text.slice(0, 200)}`);
    }
    if (!response.ok) {
      const error = (parsed as { error?: Json } | undefined)?.error;
      throw new ApiCallError(
        response.status,
        typeof error?.code === 'string' ? error.code : 'unknown_error',
        typeof error?.message === 'string' ? error.message : `HTTP ${response.status}: ${text.slice(0, 200)}`,
        error?.details as Json | undefined,
        typeof error?.request_id === 'string' ? error.request_id : undefined,
      );
    }
    return parsed as T;
  };
}

// ---------------------------------------------------------------- output

/** Terminal columns a string takes: East Asian wide characters take two (the seed data has Japanese names). */
function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    const wide =
      (cp >= 0x1100 && cp <= 0x115f) ||
      (cp >= 0x2e80 && cp <= 0xa4cf) ||
      (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe30 && cp <= 0xfe4f) ||
      (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) ||
      (cp >= 0x20000 && cp <= 0x3fffd);
    width += wide ? 2 : 1;
  }
  return width;
}

function cellText(value: unknown, max: number): string {
  let text: string;
  if (value === null || value === undefined) text = '-';
  else if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null))
    text = value.length === 0 ? '-' : value.join(', ');
  else if (typeof value === 'object') text = JSON.stringify(value);
  else text = String(value);
  text = text.replace(/\s*\n\s*/g, ' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

type Column = string | [header: string, value: (row: Json) => unknown];

/** The one table printer: columns are field names or [header, getter]; long cells are cut (use --json for
 * the full values). */
function table(rows: Json[], columns: Column[], options: { header?: boolean; max?: number } = {}): string {
  if (rows.length === 0) return '(none)';
  const headers = columns.map((c) => (typeof c === 'string' ? c.replaceAll('_', ' ') : c[0]).toUpperCase());
  const cells = rows.map((row) =>
    columns.map((c) => cellText(typeof c === 'string' ? row[c] : c[1](row), options.max ?? 60)),
  );
  const lines = options.header === false ? cells : [headers, ...cells];
  const widths = columns.map((_, k) => Math.max(...lines.map((line) => displayWidth(line[k] as string))));
  return lines
    .map((line) =>
      line
        .map((cell, k) => cell + ' '.repeat((widths[k] as number) - displayWidth(cell)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** One object as a two-column field/value table. */
const record = (object: Json): string =>
  table(
    Object.entries(object).map(([field, value]) => ({ field, value })),
    ['field', 'value'],
    { header: false, max: 100 },
  );

interface Io {
  call: Call;
  json: boolean;
}

/** Prints `value` as JSON with --json, else what `human` renders from it. */
function print(io: Io, value: unknown, human: () => string): void {
  process.stdout.write(`${io.json ? JSON.stringify(value, null, 2) : human()}\n`);
}

/** A secret the API returns once (API key secret, endpoint signing secret): shown with a warning. The JSON
 * output carries it in the response itself; the warning then goes to stderr so stdout stays parseable. */
function printWithSecret(
  io: Io,
  value: Json,
  secretField: string,
  what: string,
  view: (value: Json) => Json = (v) => v,
): void {
  const { [secretField]: secret, ...rest } = view(value);
  const warning = `${what} is shown only once and cannot be shown again: store it now.`;
  if (io.json) {
    print(io, value, () => '');
    process.stderr.write(`warning: ${warning}\n`);
    return;
  }
  print(io, value, () => `${record(rest)}\n\n${what} (${secretField}):\n  ${secret}\n\nwarning: ${warning}`);
}

const keyStatus = (key: Json): string =>
  key.revoked_at
    ? 'revoked'
    : key.expires_at && Date.parse(key.expires_at as string) <= Date.now()
      ? 'expired'
      : 'active';
const scopesText = (key: Json): unknown =>
  Array.isArray(key.scopes) && SCOPES.every((scope) => (key.scopes as string[]).includes(scope))
    ? `all (${SCOPES.length})`
    : key.scopes;
/** A key for people: every scope shown as "all (16)". */
const keyView = (key: Json): Json => ({ ...key, scopes: scopesText(key) });

// ---------------------------------------------------------------- option parsers

function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max)
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    return value;
  };
}

/** `a,b,c` or `all` (every value of `all`). */
const list =
  (all: readonly string[]) =>
  (raw: string): string[] =>
    raw.trim() === 'all'
      ? [...all]
      : raw
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);

/** Only the options the person gave, renamed to the API's field names. */
function pick(opts: Json, fields: Record<string, string>): Json {
  const body: Json = {};
  for (const [option, field] of Object.entries(fields))
    if (opts[option] !== undefined) body[field] = opts[option];
  return body;
}

function requireChanges(cmd: Command, body: Json): void {
  if (Object.keys(body).length === 0)
    cmd.error('error: nothing to update: give at least one option (see --help).');
}

const examples = (lines: string[]): string =>
  `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;

// ---------------------------------------------------------------- seed

interface Progress {
  update(done: number): void;
  log(line: string): void;
  stop(completed: boolean): void;
}

/** A progress bar on a terminal; on a pipe or a file, one plain line every 2 s and a last one at the end.
 * Both on stderr, so `--json` output on stdout stays parseable. */
function progress(total: number): Progress {
  const started = Date.now();
  const rate = (done: number) => Math.round(done / Math.max((Date.now() - started) / 1000, 0.001));
  if (process.stderr.isTTY) {
    const bars = new cliProgress.MultiBar(
      {
        format: 'seed {bar} {percentage}% | {value}/{total} records | {rate} records/s | ETA {eta_formatted}',
        hideCursor: true,
        barsize: 30,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    const bar = bars.create(total, 0, { rate: 0 });
    return {
      update: (done) => bar.update(done, { rate: rate(done) }),
      log: (line) => bars.log(`${line}\n`),
      stop: () => bars.stop(),
    };
  }
  let last = started;
  let current = 0;
  const line = (done: number) => {
    const perSecond = rate(done);
    const eta = perSecond > 0 ? Math.ceil((total - done) / perSecond) : 0;
    const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
    process.stderr.write(
      `seed: ${done}/${total} records (${percent}%), ${perSecond} records/s, ETA ${eta}s\n`,
    );
  };
  return {
    update: (done) => {
      current = done;
      if (Date.now() - last >= 2000) {
        last = Date.now();
        line(done);
      }
    },
    log: (text) => process.stderr.write(`${text}\n`),
    stop: (completed) => {
      if (completed) line(current);
    },
  };
}

/** The collections an import 422 refuses as unknown: `details.fields` keyed by a bare collection name of the
 * document (record errors are keyed `collection[index].field`). */
function unknownCollections(error: unknown, document: ImportDocument): string[] {
  if (!(error instanceof ApiCallError) || error.status !== 422) return [];
  const fields = (error.details?.fields ?? {}) as Json;
  return Object.keys(fields).filter((key) => Object.hasOwn(document, key));
}

const addCounts = (into: Record<string, number>, from: Record<string, number>) => {
  for (const [name, count] of Object.entries(from)) into[name] = (into[name] ?? 0) + count;
};

async function seed(
  io: Io,
  workspaceId: string,
  opts: { suppliers: number; seed: number; batchSize: number },
): Promise<void> {
  const importPath = path`/admin/workspaces/${workspaceId}/import`;
  await io.call('GET', path`/admin/workspaces/${workspaceId}`); // fail fast on a wrong id
  const options = { size: { suppliers: opts.suppliers }, seed: opts.seed, batchSize: opts.batchSize };
  const total = countSeedRecords(options);
  const bar = progress(total);
  const started = Date.now();
  // The server's set of collections grows as resource areas land: what it refuses as unknown is dropped
  // from this batch and every later one, and said once.
  const dropped = new Set<string>();
  const created: Record<string, number> = {};
  const skipped: Record<string, number> = {};
  let done = 0;
  let batches = 0;
  try {
    for (const batch of generateSeedBatches(options)) {
      batches++;
      for (;;) {
        const document = Object.fromEntries(Object.entries(batch).filter(([name]) => !dropped.has(name)));
        if (Object.keys(document).length === 0) break;
        try {
          const result = await io.call<{ created: Record<string, number> }>('POST', importPath, document);
          addCounts(created, result.created);
          break;
        } catch (error) {
          const refused = unknownCollections(error, document);
          if (refused.length === 0) throw error;
          for (const name of refused) {
            dropped.add(name);
            bar.log(`note: the server does not accept "${name}" records: skipping that collection.`);
          }
        }
      }
      for (const [name, records] of Object.entries(batch)) {
        if (dropped.has(name)) addCounts(skipped, { [name]: records.length });
        done += records.length;
      }
      bar.update(done);
    }
  } catch (error) {
    bar.stop(false);
    if (error instanceof CliError) {
      error.notes.push(
        `seed stopped after ${done} of ${total} records; the batches before it were imported.`,
        'Seed ids are deterministic: seeding a workspace twice with the same --seed repeats them.',
      );
    }
    throw error;
  }
  bar.stop(true);
  const seconds = (Date.now() - started) / 1000;
  const imported = Object.values(created).reduce((sum, count) => sum + count, 0);
  const summary = {
    workspace_id: workspaceId,
    suppliers: opts.suppliers,
    seed: opts.seed,
    batch_size: opts.batchSize,
    batches,
    records: total,
    imported,
    created,
    skipped,
    skipped_collections: [...dropped],
    seconds,
  };
  print(io, summary, () =>
    [
      `Seeded workspace ${workspaceId}: ${imported} records in ${batches} batches, ${seconds.toFixed(1)}s.`,
      '',
      table(
        Object.entries(created).map(([collection, count]) => ({ collection, created: count })),
        ['collection', 'created'],
      ),
      ...(dropped.size > 0
        ? [
            '',
            `Skipped (not accepted by the server): ${[...dropped].map((n) => `${n} ${skipped[n]}`).join(', ')}`,
          ]
        : []),
    ].join('\n'),
  );
}

// ---------------------------------------------------------------- migrate

async function runMigrations(io: Io): Promise<void> {
  // Loaded here so that HTTP commands do not pay for the database drivers.
  const [{ loadConfig }, { openEmbedded, openPostgres }, { lockDataDir }, { migrate }, { join }] =
    await Promise.all([
      import('../config.js'),
      import('../storage/db.js'),
      import('../storage/lock.js'),
      import('../storage/migrate.js'),
      import('node:path'),
    ]);
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  let release: (() => void) | undefined;
  let target: string;
  let db: Awaited<ReturnType<typeof openPostgres>>;
  if (config.databaseUrl) {
    const url = new URL(config.databaseUrl);
    url.password = url.password ? '***' : '';
    target = url.href;
    db = await openPostgres(config.databaseUrl, { max: 1 }).catch((error: Error) => {
      throw new CliError(`Cannot connect to ${target}: ${error.message}`);
    });
  } else {
    // The server holds this lock while it runs: PGlite loses writes when two processes open one directory.
    try {
      release = lockDataDir(config.dataDir);
    } catch (error) {
      throw new CliError((error as Error).message);
    }
    target = join(config.dataDir, 'pgdata');
    // Without the build's template: a new store then shows every migration applied by this command.
    db = await openEmbedded(target, { template: false });
  }
  try {
    const applied = await migrate(db);
    print(io, { database: db.engine, target, applied }, () =>
      applied.length === 0
        ? `Nothing to apply: ${target} is up to date.`
        : `Applied ${applied.length} migration(s) to ${target}:\n${applied.map((name) => `  ${name}`).join('\n')}`,
    );
  } finally {
    await db.close().catch(() => undefined);
    release?.();
  }
}

// ---------------------------------------------------------------- commands

type Handler = (io: Io, args: string[], opts: Json, cmd: Command) => Promise<void>;

/** Commander action → handler with the connection and output mode resolved from the global options. */
const act =
  (handler: Handler) =>
  async (...params: unknown[]): Promise<void> => {
    const cmd = params[params.length - 1] as Command;
    const globals = cmd.optsWithGlobals() as Globals;
    await handler(
      { call: connect(globals), json: Boolean(globals.json) },
      cmd.processedArgs as string[],
      cmd.opts(),
      cmd,
    );
  };

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

const planOption = () =>
  new Option('--plan <plan>', 'plan (other plans exist to see 403 plan_upgrade_required)').choices([
    'enterprise',
    'business',
    'starter',
  ]);
const quotaOption = (note = '') =>
  new Option('--quota <n>', `assessment_quota: supplier assessments the API may create${note}`).argParser(
    integer(0, 1_000_000),
  );

function buildProgram(): Command {
  const program = new Command('tprm')
    .description('Operate a tprm-api service through its management API (workspaces, keys, webhooks, data).')
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
  DATABASE_URL, DATA_DIR   used by "migrate" only
  A .env file in the current directory is read too; the environment wins.

Exit codes: 0 success, 1 the operation failed (message and API error code on stderr), 2 usage error.
${examples([
  'export ADMIN_URL=http://127.0.0.1:8081 ADMIN_TOKEN=...',
  'tprm workspaces create --name "Acme Corp" --plan enterprise',
  'tprm keys create <workspace-id> --name ci --scopes all --created-by <user-id>',
  'tprm seed <workspace-id> --suppliers 200',
  'tprm workspaces list --json | jq -r ".data[].id"',
])}`,
    );

  // workspaces
  const workspaces = program
    .command('workspaces')
    .alias('ws')
    .description('create, list, read and change workspaces');
  const workspaceColumns: Column[] = [
    'id',
    'name',
    'plan',
    ['quota', (w) => w.assessment_quota],
    'created_at',
  ];
  workspaces
    .command('create')
    .description('create a workspace (POST /admin/workspaces)')
    .requiredOption('--name <name>', 'workspace name')
    .addOption(planOption().makeOptionMandatory())
    .addOption(quotaOption(' (default: 100)'))
    .addHelpText(
      'after',
      examples(['tprm workspaces create --name "Acme Corp" --plan enterprise --quota 500']),
    )
    .action(
      act(async (io, _args, opts) => {
        const body = pick(opts, { name: 'name', plan: 'plan', quota: 'assessment_quota' });
        const workspace = await io.call('POST', '/admin/workspaces', body);
        print(io, workspace, () => record(workspace));
      }),
    );
  workspaces
    .command('list')
    .description('list every workspace, newest first (GET /admin/workspaces)')
    .addHelpText('after', examples(['tprm workspaces list', 'tprm workspaces list --json']))
    .action(
      act(async (io) => {
        const page = await io.call<{ data: Json[] }>('GET', '/admin/workspaces');
        print(io, page, () => table(page.data, workspaceColumns));
      }),
    );
  workspaces
    .command('get <workspace-id>')
    .description('show one workspace (GET /admin/workspaces/{id})')
    .addHelpText('after', examples(['tprm workspaces get 4f6c…']))
    .action(
      act(async (io, [id]) => {
        const workspace = await io.call('GET', path`/admin/workspaces/${id as string}`);
        print(io, workspace, () => record(workspace));
      }),
    );
  workspaces
    .command('update <workspace-id>')
    .description('change name, plan or quota (PATCH /admin/workspaces/{id}); a plan change applies at once')
    .option('--name <name>', 'new name')
    .addOption(planOption())
    .addOption(quotaOption())
    .addHelpText(
      'after',
      examples(['tprm workspaces update 4f6c… --plan starter', 'tprm ws update 4f6c… --quota 50']),
    )
    .action(
      act(async (io, [id], opts, cmd) => {
        const body = pick(opts, { name: 'name', plan: 'plan', quota: 'assessment_quota' });
        requireChanges(cmd, body);
        const workspace = await io.call('PATCH', path`/admin/workspaces/${id as string}`, body);
        print(io, workspace, () => record(workspace));
      }),
    );

  // users
  program
    .command('users')
    .description('people of a workspace (they create API keys and change action-plan items)')
    .command('create <workspace-id>')
    .description('add a person to a workspace (POST /admin/workspaces/{id}/users)')
    .requiredOption('--name <name>', 'full name')
    .requiredOption('--email <email>', 'email address')
    .addHelpText(
      'after',
      examples(['tprm users create 4f6c… --name "Ada Lovelace" --email ada@acme.example']),
    )
    .action(
      act(async (io, [workspaceId], opts) => {
        const user = await io.call('POST', path`/admin/workspaces/${workspaceId as string}/users`, {
          name: opts.name,
          email: opts.email,
        });
        print(io, user, () => record(user));
      }),
    );

  // API keys
  const keys = program.command('keys').alias('api-keys').description('API keys of the public API');
  keys
    .command('create <workspace-id>')
    .description('make an API key and print its secret, once (POST /admin/workspaces/{id}/api-keys)')
    .requiredOption('--name <name>', 'what the key is for')
    .requiredOption('--scopes <list>', `comma-separated scopes, or "all": ${SCOPES.join(', ')}`, list(SCOPES))
    .requiredOption('--created-by <user-id>', 'the user of the workspace the key acts for')
    .option('--expires-at <instant>', 'ISO 8601 instant after which the key stops working')
    .addHelpText(
      'after',
      examples([
        'tprm keys create 4f6c… --name "SIEM export" --scopes suppliers:read,alerts:read --created-by 9a1b…',
        'tprm keys create 4f6c… --name ci --scopes all --created-by 9a1b… --expires-at 2026-12-31T00:00:00Z',
      ]),
    )
    .action(
      act(async (io, [workspaceId], opts) => {
        const body = pick(opts, {
          name: 'name',
          scopes: 'scopes',
          createdBy: 'created_by',
          expiresAt: 'expires_at',
        });
        const key = await io.call('POST', path`/admin/workspaces/${workspaceId as string}/api-keys`, body);
        printWithSecret(io, key, 'secret', 'The API key secret', keyView);
      }),
    );
  keys
    .command('list <workspace-id>')
    .description('list the keys of a workspace, without secrets (GET /admin/workspaces/{id}/api-keys)')
    .addHelpText('after', examples(['tprm keys list 4f6c…']))
    .action(
      act(async (io, [workspaceId]) => {
        const page = await io.call<{ data: Json[] }>(
          'GET',
          path`/admin/workspaces/${workspaceId as string}/api-keys`,
        );
        print(io, page, () =>
          table(page.data, [
            'id',
            'name',
            'prefix',
            ['status', keyStatus],
            ['scopes', scopesText],
            'expires_at',
            'last_used_at',
            'created_at',
          ]),
        );
      }),
    );
  keys
    .command('revoke <key-id>')
    .description('revoke a key: its next public request gets 401 (POST /admin/api-keys/{id}/revoke)')
    .addHelpText('after', examples(['tprm keys revoke 7c2e…']))
    .action(
      act(async (io, [id]) => {
        const key = await io.call('POST', path`/admin/api-keys/${id as string}/revoke`);
        print(io, key, () => record(keyView(key)));
      }),
    );

  // webhook endpoints
  const endpoints = program
    .command('endpoints')
    .alias('webhook-endpoints')
    .description('webhook endpoints that receive signed events');
  const eventsHelp = `comma-separated events, or "all": ${WebhookEvents.join(', ')}`;
  endpoints
    .command('create <workspace-id>')
    .description(
      'register an endpoint and print its signing secret, once (POST /admin/workspaces/{id}/webhook-endpoints)',
    )
    .requiredOption('--url <url>', 'https:// URL that receives the events')
    .requiredOption('--events <list>', eventsHelp, list(WebhookEvents))
    .option('--description <text>', 'free text')
    .addHelpText(
      'after',
      examples([
        'tprm endpoints create 4f6c… --url https://hooks.acme.example/tprm --events assessment.completed,alert.created',
      ]),
    )
    .action(
      act(async (io, [workspaceId], opts) => {
        const body = pick(opts, { url: 'url', events: 'events', description: 'description' });
        const endpoint = await io.call(
          'POST',
          path`/admin/workspaces/${workspaceId as string}/webhook-endpoints`,
          body,
        );
        printWithSecret(io, endpoint, 'signing_secret', 'The signing secret');
      }),
    );
  endpoints
    .command('update <endpoint-id>')
    .description('change an endpoint (PATCH /admin/webhook-endpoints/{id})')
    .option('--url <url>', 'new URL')
    .option('--events <list>', eventsHelp, list(WebhookEvents))
    .option('--description <text>', 'new description ("" clears it)')
    .addOption(new Option('--enable', 'deliver events again').conflicts('disable'))
    .addOption(new Option('--disable', 'stop delivering events'))
    .addHelpText(
      'after',
      examples([
        'tprm endpoints update 1d3f… --disable',
        'tprm endpoints update 1d3f… --events all --enable',
      ]),
    )
    .action(
      act(async (io, [id], opts, cmd) => {
        const body = pick(opts, { url: 'url', events: 'events', description: 'description' });
        if (body.description === '') body.description = null;
        if (opts.enable || opts.disable) body.enabled = Boolean(opts.enable);
        requireChanges(cmd, body);
        const endpoint = await io.call('PATCH', path`/admin/webhook-endpoints/${id as string}`, body);
        print(io, endpoint, () => record(endpoint));
      }),
    );
  endpoints
    .command('delete <endpoint-id>')
    .description('delete an endpoint (DELETE /admin/webhook-endpoints/{id})')
    .addHelpText('after', examples(['tprm endpoints delete 1d3f…']))
    .action(
      act(async (io, [id]) => {
        await io.call('DELETE', path`/admin/webhook-endpoints/${id as string}`);
        // The API answers 204 without a body; scripts still get a JSON line.
        print(io, { id, deleted: true }, () => `Deleted webhook endpoint ${id}.`);
      }),
    );

  endpoints
    .command('rotate-secret <endpoint-id>')
    .description(
      'issue a new signing secret and print it, once; the old one keeps signing too during the overlap (POST /admin/webhook-endpoints/{id}/rotate-secret)',
    )
    .option(
      '--overlap <duration>',
      'how long both secrets sign (ms, s, m, h; at most 168h; 0s ends it now)',
      '24h',
    )
    .addHelpText(
      'after',
      `
During the overlap every delivery carries two signatures (v1=<new>,v1=<old>), so receivers can switch to
the new secret at their own pace.
${examples(['tprm endpoints rotate-secret 1d3f…', 'tprm endpoints rotate-secret 1d3f… --overlap 0s'])}`,
    )
    .action(
      act(async (io, [id], opts) => {
        const endpoint = await io.call('POST', path`/admin/webhook-endpoints/${id as string}/rotate-secret`, {
          overlap: opts.overlap,
        });
        printWithSecret(io, endpoint, 'signing_secret', 'The new signing secret');
      }),
    );
  endpoints
    .command('deliveries <endpoint-id>')
    .description("an endpoint's latest 100 delivery attempts (GET /admin/webhook-endpoints/{id}/deliveries)")
    .addHelpText('after', examples(['tprm endpoints deliveries 1d3f…']))
    .action(
      act(async (io, [id]) => {
        const result = await io.call('GET', path`/admin/webhook-endpoints/${id as string}/deliveries`);
        print(io, result, () =>
          table(result.data as Json[], [
            'attempted_at',
            'event_type',
            'attempt',
            'status',
            'response_status',
            'error',
            'id',
            'event_id',
          ]),
        );
      }),
    );
  endpoints
    .command('replay <endpoint-id>')
    .description(
      'send again every delivery of the endpoint that failed in a time range and was not delivered since (POST /admin/webhook-endpoints/{id}/replay)',
    )
    .requiredOption('--from <instant>', 'ISO 8601 date-time: failed attempts at or after it')
    .option('--to <instant>', 'ISO 8601 date-time: failed attempts at or before it (default: now)')
    .addHelpText(
      'after',
      `
Each replay is one new attempt with the original event_id and body, numbered after the event's last
attempt; it is not retried automatically.
${examples(['tprm endpoints replay 1d3f… --from 2026-11-20T02:00:00Z --to 2026-11-20T06:00:00Z'])}`,
    )
    .action(
      act(async (io, [id], opts) => {
        const body = pick(opts, { from: 'from', to: 'to' });
        const result = await io.call('POST', path`/admin/webhook-endpoints/${id as string}/replay`, body);
        print(io, result, () => `Replaying ${result.replayed} deliveries.`);
      }),
    );
  program
    .command('deliveries')
    .description('webhook delivery attempts')
    .command('replay <delivery-id>')
    .description(
      'send one delivery again: a new attempt with the original event_id (POST /admin/webhook-deliveries/{id}/replay)',
    )
    .addHelpText('after', examples(['tprm deliveries replay 93ab…']))
    .action(
      act(async (io, [id]) => {
        const attempt = await io.call('POST', path`/admin/webhook-deliveries/${id as string}/replay`, {});
        print(io, attempt, () => record(attempt));
      }),
    );

  // data
  program
    .command('import <workspace-id> <file>')
    .description('import an Import document (JSON) in one transaction (POST /admin/workspaces/{id}/import)')
    .addHelpText(
      'after',
      `
<file> is a JSON object of collections, each an array of records with the public field names
(management-api.md, "Import document"); "-" reads it from stdin. One invalid record fails the whole
import with the offending fields listed. The server takes bodies up to 4 MB; "seed" streams larger sets.
${examples([
  'tprm import 4f6c… suppliers.json',
  `echo '{"suppliers":[{"name":"Acme","domain":"acme.example"}]}' | tprm import 4f6c… -`,
])}`,
    )
    .action(
      act(async (io, [workspaceId, file]) => {
        const document = await readJson(file as string);
        const result = await io.call<{ created: Record<string, number> }>(
          'POST',
          path`/admin/workspaces/${workspaceId as string}/import`,
          document,
        );
        print(io, result, () => {
          const rows = Object.entries(result.created).map(([collection, created]) => ({
            collection,
            created,
          }));
          const count = rows.reduce((sum, row) => sum + row.created, 0);
          return `${table(rows, ['collection', 'created'])}\n\nImported ${count} records into workspace ${workspaceId}.`;
        });
      }),
    );
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
      act(async (io, [workspaceId], opts) => {
        await seed(io, workspaceId as string, opts as { suppliers: number; seed: number; batchSize: number });
      }),
    );
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
    .action(act((io) => runMigrations(io)));

  // lifecycle actions the service itself would perform
  program
    .command('assessments')
    .description('assessment lifecycle')
    .command('set-status <assessment-id>')
    .description(
      'set an assessment status; entering completed emits assessment.completed once (POST /admin/assessments/{id}/status)',
    )
    .requiredOption('--status <status>', 'draft, sent, in_progress, paused, completed or expired')
    .option('--decision <decision>', 'approved, approved_with_caveats or rejected')
    .addHelpText(
      'after',
      examples(['tprm assessments set-status 5e8a… --status completed --decision approved']),
    )
    .action(
      act(async (io, [id], opts) => {
        const assessment = await io.call(
          'POST',
          path`/admin/assessments/${id as string}/status`,
          pick(opts, { status: 'status', decision: 'decision' }),
        );
        print(io, assessment, () => record(assessment));
      }),
    );
  program
    .command('reports')
    .description('report lifecycle')
    .command('render <report-id>')
    .description("render a report's PDF, store it and emit report.ready (POST /admin/reports/{id}/render)")
    .addHelpText('after', examples(['tprm reports render 2b7d…']))
    .action(
      act(async (io, [id]) => {
        const report = await io.call('POST', path`/admin/reports/${id as string}/render`);
        print(io, report, () => record(report));
      }),
    );
  program
    .command('alerts')
    .description('alerts raised by the service')
    .command('create <workspace-id>')
    .description('raise an alert; emits alert.created (POST /admin/workspaces/{id}/alerts)')
    .requiredOption('--scope <scope>', 'supplier or org')
    .requiredOption('--severity <severity>', 'critical, high, medium or low')
    .requiredOption('--title <text>', 'short title')
    .requiredOption('--body <text>', 'what happened')
    .option('--supplier-id <id>', 'the supplier (required when --scope is supplier)')
    .addHelpText(
      'after',
      examples([
        'tprm alerts create 4f6c… --scope supplier --supplier-id 8d0c… --severity high --title "Certificate expired" --body "ISO 27001 certificate lapsed"',
        'tprm alerts create 4f6c… --scope org --severity low --title "Scanner offline" --body "No scan for 3 days"',
      ]),
    )
    .action(
      act(async (io, [workspaceId], opts) => {
        const body = pick(opts, {
          scope: 'scope',
          severity: 'severity',
          title: 'title',
          body: 'body',
          supplierId: 'supplier_id',
        });
        const alert = await io.call('POST', path`/admin/workspaces/${workspaceId as string}/alerts`, body);
        print(io, alert, () => record(alert));
      }),
    );
  program
    .command('assets')
    .description('asset review')
    .command('confirm <asset-id>')
    .description('mark an asset as reviewed by a person (POST /admin/assets/{id}/confirm)')
    .addHelpText('after', examples(['tprm assets confirm 3c9f…']))
    .action(
      act(async (io, [id]) => {
        const asset = await io.call('POST', path`/admin/assets/${id as string}/confirm`);
        print(io, asset, () => record(asset));
      }),
    );
  program
    .command('items')
    .alias('action-plan-items')
    .description('action-plan items')
    .command('set-status <item-id>')
    .description(
      'change an item status as a user; emits action_plan_item.status_changed (POST /admin/action-plan-items/{id}/status)',
    )
    .requiredOption(
      '--status <status>',
      'pending, in_progress, completed, overdue, not_applicable or rejected',
    )
    .requiredOption('--user-id <id>', 'the user of the workspace making the change')
    .option('--note <text>', 'why')
    .addHelpText(
      'after',
      examples(['tprm items set-status 6a4b… --status completed --user-id 9a1b… --note "Patched"']),
    )
    .action(
      act(async (io, [id], opts) => {
        const item = await io.call(
          'POST',
          path`/admin/action-plan-items/${id as string}/status`,
          pick(opts, { status: 'status', userId: 'user_id', note: 'note' }),
        );
        print(io, item, () => record(item));
      }),
    );

  return program;
}

async function main(argv: string[]): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  // `tprm … | head` closes the pipe early: that is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed the usage error or the help.
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    process.stderr.write(describeError(error));
    process.exitCode = 1;
  }
}

await main(process.argv.slice(2));

// `npm run bench`: builds (or reuses) the dataset, starts tprm-api and the baseline in child processes, runs
// every scenario alternating the two sides run by run, prints one table and writes the figures as JSON.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { Db } from '../src/storage/db.js';
import { loadMigrations } from '../src/storage/migrations.js';
import { type Dataset, defaultSpec, type Location, openDataset } from './dataset.js';
import { RateBudget } from './keys.js';
import { summarizeProfile } from './profile.js';
import {
  AGAINST_BARE,
  AGAINST_BUILD,
  AGAINST_CEILING,
  renderTable,
  resultsJson,
  type ScenarioResult,
} from './report.js';
import {
  type BenchEnv,
  type BenchOptions,
  type Medians,
  medianFigures,
  type RunFigures,
  type Side,
  type Store,
  withoutErrors,
} from './scenario.js';
import { scenarios } from './scenarios/index.js';
import {
  API_SCRIPT,
  BASELINE_SCRIPT,
  CEILING_SCRIPT,
  freePort,
  type ServerHandle,
  type SpawnOptions,
  spawnServer,
  startNodeArgs,
} from './servers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const positive = (kind: 'integer' | 'number') => (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0 || (kind === 'integer' && !Number.isInteger(parsed)))
    throw new InvalidArgumentError(`must be a positive ${kind}`);
  return parsed;
};

const program = new Command('bench')
  .description(
    'Benchmarks tprm-api against a naive bare server (node:http + pg + JSON.stringify) scenario by scenario, ' +
      'alternating the two run by run. Prints one table and writes bench/results/<store>-node<version>-<time>.json.',
  )
  .addOption(
    new Option('--store <store>', 'storage engine').choices(['postgres', 'embedded']).default('postgres'),
  )
  .option(
    '--scale <factor>',
    'dataset size: 1 = 1,000,000 suppliers and audit entries and 10,000 assets on PostgreSQL (100,000 and 2,500 embedded)',
    positive('number'),
    1,
  )
  .option(
    '--workspaces <n>',
    'small workspaces with keys that most load is spread over',
    positive('integer'),
    200,
  )
  .option('--duration <seconds>', 'measured seconds per run and side', positive('number'), 10)
  .option(
    '--requests <n>',
    'measured requests per run and side, in place of --duration: runs of fixed work (smoke runs on a busy machine)',
    positive('integer'),
  )
  .option('--warmup <seconds>', 'unmeasured seconds before each measured run (0: none)', Number, 2)
  .option('--runs <n>', 'alternating runs per scenario (the table shows medians)', positive('integer'), 3)
  .option('--connections <n>', 'concurrent connections of the load generator', positive('integer'), 10)
  .option('--scenarios <names>', `comma-separated subset of: ${scenarios.map((s) => s.name).join(', ')}`)
  .option('--node <path>', 'Node binary the servers run under', process.execPath)
  .option(
    '--database-url <url>',
    'dedicated PostgreSQL database (created, and rebuilt when the dataset spec changes)',
    process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/tprm_bench',
  )
  .option('--data-dir <dir>', 'embedded store of the dataset', join(ROOT, 'data', 'bench'))
  .option('--redis-url <url>', 'Redis for the rate limiter of tprm-api (default: in memory)')
  .option(
    '--against <checkout>',
    "another tprm-api checkout, built (npm run build), run in the bare server's place with the same settings: " +
      'the ratio column compares this build with that one (scenarios with a baseline side only; the other ' +
      "checkout's migrations must be this one's or fewer, since both share the dataset)",
  )
  .option(
    '--ceiling',
    "list-first only: in the bare server's place, a server that runs tprm-api's page statement and answers " +
      'with prebuilt bytes (no auth, rate limit, rendering or log): the most any server running that ' +
      'statement could reach (PostgreSQL only)',
  )
  .option('--fresh', 'rebuild the dataset even if the existing one matches')
  .option('--profile', 'run both servers under node --cpu-prof and summarize where the time went')
  .option(
    '--node-args <args>',
    'extra Node options for both servers, e.g. "--trace-gc" (their output is kept)',
  )
  .option('--out <dir>', 'results directory', join(ROOT, 'bench', 'results'))
  .option('--no-progress', 'no progress bar');

interface CliOptions {
  store: Store;
  scale: number;
  workspaces: number;
  duration: number;
  requests?: number;
  warmup: number;
  runs: number;
  connections: number;
  scenarios?: string;
  node: string;
  databaseUrl: string;
  dataDir: string;
  redisUrl?: string;
  against?: string;
  ceiling?: boolean;
  fresh?: boolean;
  profile?: boolean;
  nodeArgs?: string;
  out: string;
  progress: boolean;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

function withApplicationName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', name);
  return parsed.href;
}

async function main(): Promise<void> {
  program.parse();
  const cli = program.opts<CliOptions>();
  const selected = cli.scenarios
    ? cli.scenarios.split(',').map((name) => {
        const found = scenarios.find((s) => s.name === name.trim());
        if (!found)
          return program.error(
            `unknown scenario "${name}"; known: ${scenarios.map((s) => s.name).join(', ')}`,
          );
        return found;
      })
    : scenarios;
  const against = cli.against ? againstScript(cli.against) : null;
  if (cli.ceiling && (against || cli.store !== 'postgres'))
    program.error('--ceiling runs on PostgreSQL, and not with --against');
  const chosen = selected.filter(
    (s) =>
      s.stores.includes(cli.store) &&
      (!against || s.sides.includes('baseline')) &&
      (!cli.ceiling || s.name === 'list-first'),
  );
  const nodeVersion = execFileSync(cli.node, ['--version'], { encoding: 'utf8' }).trim();
  mkdirSync(cli.out, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const profileDir = cli.profile ? resolve(cli.out, `profiles-${stamp}`) : null;
  const options: BenchOptions = {
    store: cli.store,
    durationS: cli.duration,
    requests: cli.requests,
    warmupS: cli.warmup,
    runs: cli.runs,
    connections: cli.connections,
    node: cli.node,
    profileDir,
  };

  const location: Location =
    cli.store === 'postgres'
      ? { store: 'postgres', url: cli.databaseUrl }
      : { store: 'embedded', dataDir: cli.dataDir };
  const spec = defaultSpec(cli.store, cli.scale, cli.workspaces);
  const opened = await openDataset(location, spec, {
    fresh: cli.fresh ?? false,
    log,
    progress: cli.progress && process.stderr.isTTY,
  });
  let db: Db | null = opened.db;
  const dataset: Dataset = opened.dataset;
  for (const scenario of chosen) await scenario.prepare?.(dataset, db);

  // The embedded store is one process's: each server gets its own copy of the dataset.
  const copies: Record<Side, string> = { api: '', baseline: '' };
  if (cli.store === 'embedded') {
    await db.close();
    db = null;
    for (const side of ['api', 'baseline'] as const) {
      copies[side] = `${cli.dataDir}-${side}`;
      rmSync(copies[side], { recursive: true, force: true });
      cpSync(cli.dataDir, copies[side], { recursive: true });
    }
  }
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  // Server output (a log line per request) goes to a scratch file, removed after a clean run.
  const logDir = mkdtempSync(join(tmpdir(), 'tprm-bench-logs-'));
  const logFile = (name: string) => join(logDir, `${name}.log`);
  const storeEnv = (side: Side): Record<string, string> =>
    cli.store === 'postgres'
      ? { DATABASE_URL: withApplicationName(cli.databaseUrl, `tprm-bench-${side}`) }
      : { DATABASE_URL: '', DATA_DIR: copies[side] };
  const profileArgs = (name: string) => [
    ...(profileDir
      ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', `${name}.cpuprofile`]
      : []),
    ...(cli.nodeArgs?.split(' ').filter(Boolean) ?? []),
  ];

  const spawnApi = async (extra: Partial<SpawnOptions> & { env: Record<string, string> }) => {
    const port = await freePort();
    const adminPort = await freePort();
    const adminToken = `tprm_admin_${randomBytes(32).toString('base64url')}`;
    const name = extra.name ?? 'api';
    return spawnServer(
      {
        name,
        kind: 'tprm-api',
        node: cli.node,
        script: API_SCRIPT,
        nodeArgs: [...startNodeArgs(), ...profileArgs(name)],
        readyUrl: `http://127.0.0.1:${adminPort}/readyz`,
        logFile: logFile(name),
        applicationName: `tprm-bench-${name}`,
        admin: { url: `http://127.0.0.1:${adminPort}`, token: adminToken },
        ...extra,
        env: {
          ...storeEnv('api'),
          PORT: String(port),
          ADMIN_PORT: String(adminPort),
          ADMIN_TOKEN: adminToken,
          ROLE: 'api',
          REDIS_URL: cli.redisUrl ?? '',
          ...extra.env,
        },
      },
      `http://127.0.0.1:${port}`,
      port,
    );
  };
  const baselinePort = await freePort();
  const started = await Promise.allSettled([
    spawnApi({ env: {} }),
    against
      ? spawnApi({ name: 'baseline', script: against, env: storeEnv('baseline') })
      : spawnServer(
          {
            name: 'baseline',
            kind: 'bare',
            node: cli.node,
            script: cli.ceiling ? CEILING_SCRIPT : BASELINE_SCRIPT,
            nodeArgs: profileArgs('baseline'),
            env: { ...storeEnv('baseline'), PORT: String(baselinePort) },
            readyUrl: `http://127.0.0.1:${baselinePort}/readyz`,
            logFile: logFile('baseline'),
            applicationName: 'tprm-bench-baseline',
          },
          `http://127.0.0.1:${baselinePort}`,
          baselinePort,
        ),
  ]);
  const [api, baseline] = started.map((result) => (result.status === 'fulfilled' ? result.value : null));
  if (!api || !baseline) {
    await Promise.all([api?.stop(), baseline?.stop()]);
    throw started.find((result) => result.status === 'rejected')?.reason;
  }
  const servers: Record<Side, ServerHandle> = { api, baseline };

  const env: BenchEnv = {
    options,
    dataset,
    budget: new RateBudget(),
    servers,
    spawnApi,
    db,
    async pgPids(side) {
      if (!db) return [];
      const rows = await db.query<{ pid: number }>(
        'select pid from pg_stat_activity where application_name = $1',
        [`tprm-bench-${side}`],
      );
      return rows.map((row) => row.pid);
    },
  };

  const title =
    `tprm-api benchmark: ${cli.store}, servers on Node ${nodeVersion}, ${spec.suppliers.toLocaleString('en-US')} suppliers ` +
    `(${spec.bigWorkspaces} big + ${spec.smallWorkspaces} small workspaces), ${cli.runs} alternating runs x ${cli.requests ? `${cli.requests} requests` : `${cli.duration} s`}, ` +
    `${cli.connections} connections; medians` +
    (against ? `; "against" is the build in ${resolve(cli.against as string)}` : '') +
    (cli.ceiling ? '; "ceiling" is the page statement with prebuilt bytes (bench/baseline/ceiling.ts)' : '');
  const results: ScenarioResult[] = [];
  try {
    for (const scenario of chosen) {
      log(`${scenario.name}: ${scenario.title}`);
      const runs: Record<string, RunFigures[]> = Object.fromEntries(scenario.sides.map((side) => [side, []]));
      for (let run = 0; run < cli.runs; run++) {
        // api first on even runs, baseline first on odd ones: neither side always runs on a warmer machine.
        const order = run % 2 === 0 ? scenario.sides : [...scenario.sides].reverse();
        for (const side of order) {
          const figures = await scenario.run(env, side);
          await scenario.cleanup?.(env);
          runs[side]?.push(figures);
          for (const [series, f] of Object.entries(figures)) {
            log(
              `  run ${run + 1}/${cli.runs} ${side.padEnd(8)} ${series}: ` +
                `${f.reqPerSec?.toFixed(0) ?? '-'} req/s, p50 ${f.p50Ms?.toFixed(1) ?? '-'} ms, ` +
                `p99 ${f.p99Ms?.toFixed(1) ?? '-'} ms, RSS ${f.rssMb?.toFixed(0) ?? '-'} MB` +
                (f.errors ? `, ${f.errors} ERRORS ${JSON.stringify(f.statusCodes)}` : ''),
            );
          }
        }
      }
      const medians: Medians = {};
      for (const side of scenario.sides) {
        const sideRuns = runs[side] ?? [];
        const seriesNames = Object.keys(sideRuns[0] ?? {});
        medians[side] = Object.fromEntries(
          seriesNames.map((series) => [
            series,
            medianFigures(sideRuns.map((r) => r[series]).filter((f) => f !== undefined)),
          ]),
        );
      }
      // A scenario's target is set against the bare server; another build, or the ceiling, has none.
      const verdict =
        against || cli.ceiling
          ? withoutErrors(medians, {
              ok: true,
              detail: `${against ? 'another build' : 'the ceiling'}: no target`,
            })
          : scenario.judge(medians, cli.store);
      results.push({ scenario, runs, medians, verdict });
    }
  } catch (error) {
    log(`server logs kept in ${logDir}`);
    throw error;
  } finally {
    await Promise.all([servers.api.stop(), servers.baseline.stop()]);
    await db?.close();
  }
  if (cli.nodeArgs) log(`server output kept in ${logDir}`);
  else rmSync(logDir, { recursive: true, force: true });

  process.stdout.write(
    `\n${renderTable(title, results, against ? AGAINST_BUILD : cli.ceiling ? AGAINST_CEILING : AGAINST_BARE)}\n`,
  );
  const file = join(cli.out, `${cli.store}-node${nodeVersion.replace(/^v/, '')}-${stamp}.json`);
  const meta = {
    date: new Date().toISOString(),
    node: nodeVersion,
    store: cli.store,
    spec,
    options: { ...options, scenarios: chosen.map((s) => s.name), against: against ?? undefined },
    machine: { cpus: cpus().length, model: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30) },
  };
  writeFileSync(file, resultsJson(meta, results));
  process.stdout.write(`\nFigures written to ${file}\n`);
  if (profileDir) {
    for (const name of readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'))) {
      const path = join(profileDir, name);
      const { text, folded } = summarizeProfile(path);
      writeFileSync(`${path}.folded`, `${folded}\n`);
      process.stdout.write(`\n${text}\n`);
    }
  }
  const failed = results.filter((r) => r.verdict.detail.startsWith('INVALID'));
  if (failed.length > 0) process.exitCode = 1;
}

/** The entry point of the other build, refused when it is not built or would migrate the shared dataset. */
function againstScript(checkout: string): string {
  const script = resolve(checkout, 'dist/src/main.js');
  if (!existsSync(script)) program.error(`${script} not found: run npm run build in ${checkout}`);
  const ours = new Set(loadMigrations().map((migration) => migration.name));
  const theirs = readdirSync(resolve(checkout, 'src/storage/migrations')).filter((f) => f.endsWith('.sql'));
  const extra = theirs.filter((name) => !ours.has(name));
  if (extra.length > 0)
    program.error(
      `${checkout} has migrations this checkout has not (${extra.join(', ')}): they would change the ` +
        'dataset both builds share; run the bench from the newer checkout',
    );
  return script;
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error?.stack ?? error}\n`);
  process.exit(1);
});

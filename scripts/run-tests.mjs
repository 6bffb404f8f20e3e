#!/usr/bin/env node
// Runs the compiled test suite with node:test: on the embedded store, and again on PostgreSQL when
// TEST_DATABASE_URL is set (each test file then gets its own database cloned from a migrated template).
// Each run is also a log audit: every test harness logs at the most verbose level into a run directory and
// records the secrets and personal values it used; after the run, no log line may hold any of them, nor
// anything shaped like a key, token or e-mail address (test/support/logs.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filter = process.argv.slice(2);

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

const files = findTests(join(root, 'dist/test'))
  .filter((file) => filter.length === 0 || filter.some((part) => file.includes(part)))
  .sort();
if (files.length === 0) {
  console.error('No test files found under dist/test (did the build run?)');
  process.exit(1);
}

// Test files at a time: one per core, at most 8 (a file's servers, child processes and databases take cores and
// memory of their own, so more files than that only queue for them); TEST_CONCURRENCY sets it.
const MAX_CONCURRENCY = 8;
const concurrency = process.env.TEST_CONCURRENCY
  ? Number(process.env.TEST_CONCURRENCY)
  : Math.min(availableParallelism(), MAX_CONCURRENCY);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`TEST_CONCURRENCY must be a positive integer, not "${process.env.TEST_CONCURRENCY}"`);
  process.exit(2);
}

const { auditLogDir } = await import('../dist/test/support/logs.js');

function run(label, env) {
  console.log(
    `\n# ${label}: ${files.length} test files on Node ${process.version}, ${concurrency} at a time`,
  );
  // TEST_LOG_DIR set by the caller keeps the logs; otherwise they are kept only when the audit fails.
  const logDir = process.env.TEST_LOG_DIR
    ? join(process.env.TEST_LOG_DIR, label.replace(/\W+/g, '-'))
    : mkdtempSync(join(tmpdir(), 'tprm-test-logs-'));
  const result = spawnSync(
    process.execPath,
    [
      '--test',
      `--test-concurrency=${concurrency}`,
      '--test-timeout=300000',
      '--test-reporter=spec',
      ...files,
    ],
    { stdio: 'inherit', env: { ...process.env, ...env, TEST_LOG_DIR: logDir } },
  );
  const audit = auditLogDir(logDir);
  if (audit.leaks.length > 0) {
    console.error(`\n# log audit (${label}): ${audit.leaks.length} leaks; logs kept in ${logDir}`);
    for (const leak of audit.leaks.slice(0, 20)) console.error(`  ${leak.file}:${leak.line} ${leak.what}`);
    return 1;
  }
  console.log(
    `\n# log audit (${label}): ${audit.files} log files, ${audit.lines} lines, ${audit.values} recorded secret or personal values, none logged`,
  );
  if (!process.env.TEST_LOG_DIR) rmSync(logDir, { recursive: true, force: true });
  return result.status ?? 1;
}

let status = run('embedded store (PGlite)', { TEST_DATABASE_URL: '' });

const url = process.env.TEST_DATABASE_URL;
if (url) {
  const pg = (await import('pg')).default;
  const template = `tprm_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop database if exists ${template}`);
  await admin.query(`create database ${template}`);
  const target = new URL(url);
  target.pathname = `/${template}`;
  const { openPostgres } = await import('../dist/src/storage/db.js');
  const { migrate } = await import('../dist/src/storage/migrate.js');
  const db = await openPostgres(target.href, { max: 1 });
  await migrate(db);
  await db.close();
  try {
    status =
      run('PostgreSQL server', { TEST_TEMPLATE_DB: template, TEST_DB_PREFIX: `tprm_t${process.pid}_` }) ||
      status;
  } finally {
    // Only this run's databases: other runs may share the server.
    const leftovers = await admin.query('select datname from pg_database where datname like $1', [
      `tprm_t${process.pid}\\_%`,
    ]);
    for (const { datname } of leftovers.rows)
      await admin.query(`drop database if exists ${datname} with (force)`);
    await admin.query(`drop database if exists ${template} with (force)`);
    await admin.end();
  }
}
process.exit(status);

// A short run of `npm run bench` at a tiny scale: the dataset builds, both servers start, load runs through
// the rate limits without a failed request, and the table and the JSON figures come out. On the embedded
// store, or on a PostgreSQL database of its own when TEST_DATABASE_URL is set. Figures are not judged here:
// seconds of load on a shared machine prove nothing about speed. Each run is a fixed number of requests
// (--requests), not a number of seconds: on a busy machine a second-long run against a cold server may see
// no response at all, and a series with no requests would fail the check below.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const BENCH = fileURLToPath(new URL('../../bench/main.js', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'tprm-bench-smoke-'));
const url = process.env.TEST_DATABASE_URL;
const database = url ? `${process.env.TEST_DB_PREFIX ?? 'tprm_t_'}bench` : null;

const databaseUrl = () => {
  const target = new URL(url as string);
  target.pathname = `/${database}`;
  return target.href;
};

after(async () => {
  rmSync(scratch, { recursive: true, force: true });
  if (!url) return;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.end();
});

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** Requests per measured run and side. */
const REQUESTS = 40;

/** `npm run bench` at a tiny scale, one short run of each scenario; `extra` adds options. */
function tinyBench(out: string, scenarios: string, extra: string[] = []) {
  const store = url ? ['--store', 'postgres', '--database-url', databaseUrl()] : ['--store', 'embedded'];
  return spawnSync(
    process.execPath,
    [
      BENCH,
      ...store,
      '--data-dir',
      join(scratch, 'data'),
      '--scale',
      '0.002',
      '--workspaces',
      '20',
      '--requests',
      String(REQUESTS),
      '--warmup',
      '0',
      '--runs',
      '1',
      '--scenarios',
      scenarios,
      '--out',
      out,
      '--no-progress',
      ...extra,
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
}

/** The figures file of a run: every series of both sides made requests, none failed, each side all of its run's. */
function readResults(out: string, scenarios: string[]) {
  const [file] = readdirSync(out).filter((name) => name.endsWith('.json'));
  assert.ok(file, 'no results file');
  const results = JSON.parse(readFileSync(join(out, file), 'utf8'));
  assert.deepEqual(
    results.scenarios.map((s: { name: string }) => s.name),
    scenarios,
  );
  for (const scenario of results.scenarios) {
    for (const side of ['api', 'baseline']) {
      const series = Object.entries(scenario.medians[side]) as [
        string,
        { requests: number; errors: number },
      ][];
      for (const [name, figures] of series) {
        assert.ok(figures.requests > 0, `${scenario.name} ${side} ${name}: no requests`);
        assert.equal(figures.errors, 0, `${scenario.name} ${side} ${name}: failed requests`);
      }
      const total = series.reduce((sum, [, figures]) => sum + figures.requests, 0);
      assert.equal(total, REQUESTS, `${scenario.name} ${side}: requests of the run`);
    }
  }
  return results;
}

test('a tiny bench run builds its data, loads both servers without errors and writes its figures', () => {
  const out = join(scratch, 'results');
  const run = tinyBench(out, 'list-first,list-deep');
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /list-first: first page\s+api/);
  assert.match(run.stdout, /vs baseline/);
  readResults(out, ['list-first', 'list-deep']);
});

test('--against runs another tprm-api build in place of the bare server, under the same limits and cursors', () => {
  const out = join(scratch, 'against');
  // This checkout against itself: writes, and a stored cursor read by the other build.
  const run = tinyBench(out, 'post-suppliers,list-deep,startup', ['--against', ROOT]);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /vs against/);
  assert.match(run.stdout, /\n\s+against\s/);
  assert.match(run.stdout, /another build: no target/);
  // A row's name starts its line (the header names the checkout, whose path may hold the word).
  assert.doesNotMatch(run.stdout, /^startup:/m, 'a scenario without a baseline side has nothing to compare');
  const results = readResults(out, ['post-suppliers', 'list-deep']);
  assert.equal(results.meta.options.against, join(ROOT, 'dist/src/main.js'));
});

test('--against refuses a checkout that is not built', () => {
  const run = tinyBench(join(scratch, 'refused'), 'post-suppliers', ['--against', scratch]);
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /dist\/src\/main\.js not found: run npm run build/);
});

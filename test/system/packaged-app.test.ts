// The application as production runs it (issue 25 "Ship it", point 1; decision P130): what `npm pack` puts in
// the package (package.json `files`: bin/ and the compiled dist/, the SQL migrations and the embedded store's
// template included) plus the production dependencies installed by `npm ci --omit=dev`, in a folder of its own
// with no src/, no dev dependency and no build step; the container image is made the same way. It starts with
// `tprm serve` on the store under test, is ready, and answers an authenticated list.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { settingVariables } from '../../src/config.js';
import { finished } from '../support/child.js';
import { ENGINE, Harness } from '../support/harness.js';
import { recordSensitive } from '../support/logs.js';
import { startService } from '../support/service.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);
// npm runs with the node that runs the tests (Node 20 or 24 in CI).
const NPM_ENV = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' };

let work: string;
let app: string;
let h: Harness | undefined;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tprm-packed-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: ROOT,
    env: NPM_ENV,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout) as { filename: string }[];
  await run('tar', ['-xzf', join(work, packed?.filename as string), '-C', work]);
  app = join(work, 'package');
  copyFileSync(join(ROOT, 'package-lock.json'), join(app, 'package-lock.json'));
  await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: app,
    env: NPM_ENV,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (ENGINE === 'postgres') h = await Harness.start();
});
after(async () => {
  await h?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the package holds the compiled service and its runtime files, and no sources or dev dependency', () => {
  assert.ok(!existsSync(join(app, 'src')), 'no src/ in the package');
  assert.ok(!existsSync(join(app, 'node_modules/typescript')), 'no dev dependency installed');
  // Only the package's own folders and node_modules: nothing installed for a linked development folder.
  assert.deepEqual(readdirSync(app).sort(), [
    'README.md',
    'bin',
    'dist',
    'node_modules',
    'package-lock.json',
    'package.json',
  ]);
  const storage = readdirSync(join(app, 'dist/src/storage'));
  assert.ok(
    storage.some((name) => /^pglite-template-\w+\.tar\.gz$/.test(name)),
    storage.join(' '),
  );
  const shipped = readdirSync(join(app, 'dist/src/storage/migrations'));
  const sources = readdirSync(join(ROOT, 'src/storage/migrations'));
  assert.deepEqual(shipped.sort(), sources.sort());
});

test('tprm serve --help says what it reads and starts nothing', async () => {
  const dataDir = join(work, 'help-data');
  const result = await finished(
    spawn(process.execPath, ['bin/tprm.js', 'serve', '--help'], {
      cwd: app,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', ADMIN_PORT: '0' },
    }),
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^Usage: tprm serve/);
  assert.match(result.stdout, /--role <role>/);
  for (const name of settingVariables()) assert.ok(result.stdout.includes(name), `--help names ${name}`);
  assert.ok(!existsSync(dataDir), 'no DATA_DIR created');
});

test(`the packed service starts with tprm serve on ${ENGINE}: ready, an authenticated list, SIGTERM`, async () => {
  const adminToken = `packed-${randomUUID()}-${randomUUID()}`;
  recordSensitive(adminToken);
  const service = await startService(
    {
      ADMIN_TOKEN: adminToken,
      DATA_DIR: join(work, 'data'),
      ...(h?.databaseUrl ? { DATABASE_URL: h.databaseUrl } : {}),
    },
    60_000,
    { args: ['--max-semi-space-size=8', 'bin/tprm.js', 'serve', '--role', 'all'], cwd: app },
  );
  try {
    const ready = await fetch(`${service.adminUrl}/readyz`);
    assert.equal(ready.status, 200, await ready.text());
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of the API
    const admin = async (path: string, body: unknown): Promise<any> => {
      const res = await fetch(`${service.adminUrl}/admin${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 201, `${path}: ${await res.clone().text()}`);
      return res.json();
    };
    const ws = await admin('/workspaces', { name: 'Packed', plan: 'enterprise' });
    const user = await admin(`/workspaces/${ws.id}/users`, { name: 'Ops', email: 'ops@packed.example' });
    const key = await admin(`/workspaces/${ws.id}/api-keys`, {
      name: 'packed',
      scopes: ['suppliers:read'],
      created_by: user.id,
    });
    recordSensitive(key.secret);
    const list = await fetch(`${service.publicUrl}/v1/suppliers?limit=2`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    assert.equal(list.status, 200, await list.clone().text());
    assert.deepEqual(((await list.json()) as { data: unknown[] }).data, []);
    assert.equal(await service.kill('SIGTERM'), 0, service.output.join('\n'));
  } finally {
    if (service.child.exitCode === null && service.child.signalCode === null) await service.kill('SIGKILL');
  }
});

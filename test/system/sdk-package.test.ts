// The SDK as another project gets it (issue 25 "Ship it", point 7; decision P138): `npm pack` of sdk/ is a
// package that `npm install` puts into a fresh project under its name, @tprm/client, and that project's ES
// module and CommonJS code call the real service with it. The repository's examples import it by that name.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Harness, type TestWorkspace } from '../support/harness.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SDK_DIR = join(ROOT, 'sdk');
const run = promisify(execFile);
const NPM_ENV = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' };

let h: Harness;
let ws: TestWorkspace;
let baseUrl: string;
let consumer: string;
let tarball: string;

before(async () => {
  h = await Harness.start();
  ws = await h.workspace({ scopes: ['suppliers:read'] });
  await h.publicApp.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(h.publicApp.server.address() as { port: number }).port}/v1`;
  consumer = mkdtempSync(join(tmpdir(), 'tprm-sdk-installed-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', consumer], {
    cwd: SDK_DIR,
    env: NPM_ENV,
    maxBuffer: 16 * 1024 * 1024,
  });
  tarball = join(consumer, (JSON.parse(stdout) as { filename: string }[])[0]?.filename as string);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '0.0.0', private: true }),
  );
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
    cwd: consumer,
    env: NPM_ENV,
  });
});
after(async () => {
  await h.close();
  rmSync(consumer, { recursive: true, force: true });
});

test('the SDK is a publishable package: not private, named @tprm/client, its builds in the tarball', async () => {
  const manifest = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8'));
  assert.equal(manifest.private, undefined, 'not private: it can be published and installed by name');
  assert.equal(manifest.name, '@tprm/client');
  const { stdout } = await run('tar', ['-tzf', tarball]);
  const files = stdout.split('\n');
  for (const file of [
    'package/dist/esm/index.js',
    'package/dist/cjs/index.js',
    'package/dist/cjs/package.json',
  ])
    assert.ok(files.includes(file), file);
  assert.ok(!files.some((file) => file.startsWith('package/node_modules/')));
});

test('installed from its tarball, it works from ES modules and from CommonJS against the service', async () => {
  const probe = (load: string) => `
    ${load}
    const client = sdk.createClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
    client.suppliers.listPage({ limit: 1 }).then((page) => console.log(JSON.stringify({
      list: Array.isArray(page.data),
      version: sdk.SDK_VERSION,
    })));`;
  writeFileSync(join(consumer, 'esm.mjs'), probe("import * as sdk from '@tprm/client';"));
  writeFileSync(join(consumer, 'cjs.cjs'), probe("const sdk = require('@tprm/client');"));
  const version = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')).version;
  for (const file of ['esm.mjs', 'cjs.cjs']) {
    const { stdout } = await run(process.execPath, [file], {
      cwd: consumer,
      env: { PATH: process.env.PATH ?? '', BASE_URL: baseUrl, API_KEY: ws.key },
    });
    assert.deepEqual(JSON.parse(stdout), { list: true, version }, file);
  }
});

test('the examples import the SDK by its package name', () => {
  const examples = join(ROOT, 'examples');
  for (const file of readdirSync(examples).filter((name) => name.endsWith('.mjs'))) {
    const text = readFileSync(join(examples, file), 'utf8');
    assert.match(text, /from '@tprm\/client';/, file);
    assert.doesNotMatch(text, /sdk\/dist/, file);
  }
});

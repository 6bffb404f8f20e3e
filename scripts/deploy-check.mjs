#!/usr/bin/env node
// The checks of scripts/deploy-check.sh on a built image (APP_IMAGE), each of which fails the run:
// 1. the image: under 250 MB, labels, a non-root user, a HEALTHCHECK, no shell;
// 2. on the embedded store (a volume, read-only root filesystem, ports published on 127.0.0.1): /readyz, one
//    authenticated list, Docker's health check turning healthy, then SIGTERM (docker stop) exiting 0;
// 3. on this machine's PostgreSQL and Redis (host network, loopback only): `migrate`, then the same checks;
// 4. the compose fleet (deploy/compose/): up, a request through each API replica, a webhook delivered by the
//    worker to a receiver in the fleet's network, down.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const DOCKER = process.env.DOCKER || 'docker';
const IMAGE = process.env.APP_IMAGE || 'local/tprm-api:ci';
const MAX_IMAGE_BYTES = 250 * 1000 * 1000;
const DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const secret = () => randomBytes(32).toString('base64url');
/** fetch, bounded: a connection that never answers is a failed try, not a hang. */
const request = (url, init = {}) => fetch(url, { signal: AbortSignal.timeout(10_000), ...init });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function docker(args, options = {}) {
  return execFileSync(DOCKER, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options,
  }).trim();
}

function check(condition, message) {
  if (!condition) throw new Error(`deploy check failed: ${message}`);
  console.log(`  ok: ${message}`);
}

async function eventually(what, probe, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`deploy check failed: ${what} (waited ${timeoutMs / 1000} s)`);
    await sleep(500);
  }
}

async function json(url, init = {}) {
  const res = await request(url, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** A workspace, a user and an API key created through the management API of `adminUrl`. */
async function workspaceWithKey(adminUrl, adminToken, scopes) {
  const post = (path, body) =>
    json(`${adminUrl}/admin${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const ws = await post('/workspaces', { name: 'Deploy check', plan: 'enterprise' });
  const user = await post(`/workspaces/${ws.id}/users`, { name: 'Ops', email: 'ops@deploy.example' });
  const key = await post(`/workspaces/${ws.id}/api-keys`, {
    name: 'deploy-check',
    scopes,
    created_by: user.id,
  });
  return { id: ws.id, key: key.secret, post };
}

async function authenticatedList(publicUrl, key) {
  const page = await json(`${publicUrl}/v1/suppliers?limit=2`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return Array.isArray(page.data);
}

/** `docker stop` (SIGTERM, then SIGKILL after 30 s): the exit code and the seconds it took. */
function stop(container) {
  const started = Date.now();
  docker(['stop', '-t', '30', container]);
  return {
    code: Number(docker(['inspect', '-f', '{{.State.ExitCode}}', container])),
    seconds: (Date.now() - started) / 1000,
  };
}

function inspectImage() {
  console.log(`== image ${IMAGE}`);
  const [info] = JSON.parse(docker(['image', 'inspect', IMAGE]));
  const megabytes = (info.Size / 1e6).toFixed(0);
  check(info.Size < MAX_IMAGE_BYTES, `size ${megabytes} MB (under 250 MB)`);
  const labels = info.Config.Labels ?? {};
  check(
    labels['org.opencontainers.image.version'] && labels['org.opencontainers.image.source'],
    'labels: version and source',
  );
  check(
    info.Config.User && !/^(0|root)(:|$)/.test(info.Config.User),
    `runs as ${info.Config.User}, not root`,
  );
  check(info.Config.Healthcheck?.Test?.length > 0, 'a HEALTHCHECK');
  check(
    info.Config.ExposedPorts?.['8080/tcp'] && info.Config.ExposedPorts?.['8081/tcp'],
    'ports 8080 and 8081',
  );
  const shell = spawnSync(DOCKER, ['run', '--rm', '--entrypoint', '/bin/sh', IMAGE, '-c', 'true'], {
    encoding: 'utf8',
  });
  check(shell.status !== 0, 'no shell in the image');
  return megabytes;
}

async function embeddedStore() {
  console.log('== the image on the embedded store (volume, read-only root filesystem)');
  const name = `tprm-ci-embedded-${process.pid}`;
  const volume = `${name}-data`;
  const adminToken = secret();
  try {
    docker([
      'run',
      '-d',
      '--name',
      name,
      '--read-only',
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges',
      '-v',
      `${volume}:/data`,
      '--tmpfs',
      '/tmp',
      '-p',
      '127.0.0.1::8080',
      '-p',
      '127.0.0.1::8081',
      '-e',
      `ADMIN_TOKEN=${adminToken}`,
      IMAGE,
    ]);
    const port = (inner) =>
      docker(['port', name, `${inner}/tcp`])
        .split('\n')[0]
        .split(':')
        .pop();
    const publicUrl = `http://127.0.0.1:${port(8080)}`;
    const adminUrl = `http://127.0.0.1:${port(8081)}`;
    await eventually('/readyz answers 200', async () => (await request(`${adminUrl}/readyz`)).status === 200);
    check(true, '/readyz 200 through the published port (the container listens on 0.0.0.0)');
    const ws = await workspaceWithKey(adminUrl, adminToken, ['suppliers:read']);
    check(await authenticatedList(publicUrl, ws.key), 'an authenticated list (GET /v1/suppliers)');
    await eventually(
      'Docker reports the container healthy',
      () => docker(['inspect', '-f', '{{.State.Health.Status}}', name]) === 'healthy',
    );
    check(true, 'HEALTHCHECK: healthy');
    const stopped = stop(name);
    check(stopped.code === 0, `SIGTERM: exit code ${stopped.code} after ${stopped.seconds.toFixed(1)} s`);
    check(
      /"msg":"stopped"/.test(docker(['logs', name], { stdio: ['ignore', 'pipe', 'pipe'] })),
      'logged "stopped"',
    );
  } finally {
    spawnSync(DOCKER, ['rm', '-f', name]);
    spawnSync(DOCKER, ['volume', 'rm', '-f', volume]);
  }
}

async function postgresAndRedis() {
  console.log('== the image on PostgreSQL and Redis (host network, loopback)');
  const database = `tprm_deploy_${process.pid}`;
  const server = new pg.Client({ connectionString: DATABASE_URL });
  await server.connect();
  await server.query(`create database ${database}`);
  const target = new URL(DATABASE_URL);
  target.pathname = `/${database}`;
  const name = `tprm-ci-postgres-${process.pid}`;
  const adminToken = secret();
  // Free ports on loopback, away from what the test suite uses.
  const [port, adminPort] = [18000 + (process.pid % 500) * 2, 18001 + (process.pid % 500) * 2];
  const env = [
    '-e',
    `DATABASE_URL=${target.href}`,
    '-e',
    `REDIS_URL=${REDIS_URL}`,
    '-e',
    `ADMIN_TOKEN=${adminToken}`,
    '-e',
    'HOST=127.0.0.1',
    '-e',
    'ADMIN_HOST=127.0.0.1',
    '-e',
    `PORT=${port}`,
    '-e',
    `ADMIN_PORT=${adminPort}`,
  ];
  try {
    const migrated = docker([
      'run',
      '--rm',
      '--network',
      'host',
      '--read-only',
      '--tmpfs',
      '/tmp',
      ...env,
      IMAGE,
      'migrate',
    ]);
    check(/Applied \d+ migration/.test(migrated), `tprm migrate: ${migrated.split('\n')[0]}`);
    docker([
      'run',
      '-d',
      '--name',
      name,
      '--network',
      'host',
      '--read-only',
      '--cap-drop',
      'ALL',
      '--tmpfs',
      '/tmp',
      ...env,
      IMAGE,
      'serve',
      '--role',
      'all',
    ]);
    const adminUrl = `http://127.0.0.1:${adminPort}`;
    await eventually('/readyz answers 200', async () => (await request(`${adminUrl}/readyz`)).status === 200);
    check(true, '/readyz 200');
    const ws = await workspaceWithKey(adminUrl, adminToken, ['suppliers:read']);
    check(await authenticatedList(`http://127.0.0.1:${port}`, ws.key), 'an authenticated list');
    const metrics = await (await request(`${adminUrl}/metrics`)).text();
    check(/^tprm_rate_limiter_mode\{mode="redis"\} 1$/m.test(metrics), 'rate limits on Redis');
    const stopped = stop(name);
    check(stopped.code === 0, `SIGTERM: exit code ${stopped.code} after ${stopped.seconds.toFixed(1)} s`);
  } finally {
    spawnSync(DOCKER, ['rm', '-f', name]);
    await server.query(`drop database if exists ${database} with (force)`);
    await server.end();
  }
}

async function composeFleet() {
  console.log('== the compose fleet (deploy/compose)');
  const dir = mkdtempSync(join(tmpdir(), 'tprm-compose-'));
  const project = `tprmci${process.pid}`;
  const adminToken = secret();
  const envFile = join(dir, 'ci.env');
  const base = 19000 + (process.pid % 400) * 5;
  writeFileSync(
    envFile,
    [
      `ADMIN_TOKEN=${adminToken}`,
      `POSTGRES_PASSWORD=${secret()}`,
      `REDIS_PASSWORD=${secret()}`,
      `TPRM_IMAGE=${IMAGE}`,
      `POSTGRES_IMAGE=${process.env.POSTGRES_IMAGE}`,
      `REDIS_IMAGE=${process.env.REDIS_IMAGE}`,
      `API_1_PORT=${base}`,
      `API_1_ADMIN_PORT=${base + 1}`,
      `API_2_PORT=${base + 2}`,
      `API_2_ADMIN_PORT=${base + 3}`,
      `WORKER_ADMIN_PORT=${base + 4}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const compose = (...args) =>
    execFileSync(
      'docker-compose',
      [
        '-p',
        project,
        '--env-file',
        envFile,
        '-f',
        'deploy/compose/compose.yaml',
        '-f',
        'deploy/compose/ci.yaml',
        ...args,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
  try {
    compose('up', '-d');
    const apis = [
      { name: 'api-1', publicUrl: `http://127.0.0.1:${base}`, adminUrl: `http://127.0.0.1:${base + 1}` },
      { name: 'api-2', publicUrl: `http://127.0.0.1:${base + 2}`, adminUrl: `http://127.0.0.1:${base + 3}` },
    ];
    for (const api of apis)
      await eventually(
        `${api.name} ready`,
        async () => (await request(`${api.adminUrl}/readyz`)).status === 200,
        180_000,
      );
    check(/Exit 0/.test(compose('ps', 'migrate')), 'the migrate service ran once and exited 0');
    await eventually(
      'worker ready',
      async () => (await request(`http://127.0.0.1:${base + 4}/readyz`)).status === 200,
    );
    const ws = await workspaceWithKey(apis[0].adminUrl, adminToken, ['suppliers:read']);
    for (const api of apis)
      check(await authenticatedList(api.publicUrl, ws.key), `a request through ${api.name}`);
    const path = `/hook-${randomUUID()}`;
    await ws.post(`/workspaces/${ws.id}/webhook-endpoints`, {
      url: `http://receiver:9000${path}`,
      events: ['alert.created'],
    });
    await ws.post(`/workspaces/${ws.id}/alerts`, {
      scope: 'org',
      severity: 'low',
      title: 'deploy check',
      body: 'b',
    });
    const delivered = await eventually('the worker delivers the webhook to the receiver', () =>
      compose('logs', '--no-color', 'receiver')
        .split('\n')
        .find((line) => line.includes(path)),
    );
    check(/alert\.created/.test(delivered), 'a webhook (alert.created) delivered by the worker');
  } finally {
    try {
      compose('down', '-v', '--remove-orphans');
    } catch (error) {
      console.error(`docker-compose down failed: ${error.stderr ?? error.message}`);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

// Undici's sockets and the abort timers do not keep Node alive: this does, until every check has ended.
const alive = setInterval(() => undefined, 1000);
const started = Date.now();
const megabytes = inspectImage();
await embeddedStore();
await postgresAndRedis();
await composeFleet();
clearInterval(alive);
console.log(
  `== deploy check passed in ${((Date.now() - started) / 1000).toFixed(0)} s (image ${megabytes} MB)`,
);

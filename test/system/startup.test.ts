// Issue 23 "Outside findings, round 3", points 7-9: the process's start. The secrets a start shows once never
// reach standard output (P116, P117); every bad setting stops the start in one line with exit code 2, and
// `--help` prints the settings (P118); on a first start the demo reports' PDFs are rendered in the background,
// so the first download works (P119). The real service, `node dist/src/main.js`, as a child process.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { LOG_LEVELS, SETTINGS, type SettingName, settingVariables } from '../../src/config.js';
import { FIRST_START_FILE } from '../../src/management/bootstrap.js';
import { generateAdminToken, sha256 } from '../../src/security/secrets.js';
import { readSetting, writeSetting } from '../../src/storage/settings.js';
import { ENGINE, useHarness } from '../support/harness.js';
import { findLeaks, recordSensitive } from '../support/logs.js';
import { eventually, sleep } from '../support/receiver.js';
import { freePort } from '../support/redis.js';
import {
  type FirstStartSecrets,
  firstStartSecrets,
  type ServiceProcess,
  startService,
} from '../support/service.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));
const scratch: string[] = [];
const scratchDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `tprm-${name}-`));
  scratch.push(dir);
  return dir;
};
after(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the service where it must not keep running: its exit code and output (killed after a minute). */
function runToEnd(env: Record<string, string>, args: string[] = []): Promise<Ended> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      {
        env: { PATH: process.env.PATH ?? '', PORT: '0', ADMIN_PORT: '0', ...env },
        encoding: 'utf8',
        // A process that starts anyway is killed outright: it would take SIGTERM as a request to drain.
        timeout: 60_000,
        killSignal: 'SIGKILL',
      },
      (error, stdout, stderr) => resolve({ code: error ? (error.code as number | null) : 0, stdout, stderr }),
    );
  });
}

/** A TCP listener on 127.0.0.1 holding a port, as another program would. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return { port: address.port, server };
}

// The process reads no database here but opens embedded stores: one run of the suite is enough.
describe('settings (P118)', {
  skip: ENGINE !== 'pglite' && 'belongs to the embedded-store run of the suite',
}, () => {
  test("LOG_LEVEL accepts exactly pino's levels and silent (the list is written out so the CLI loads no pino)", () => {
    assert.deepEqual([...LOG_LEVELS].sort(), [...Object.keys(pino.levels.values), 'silent'].sort());
  });

  test('every setting the process reads: a bad value exits 2 with one line naming the variable and its accepted form, no stack trace; a port in use too', async () => {
    const dataDir = scratchDir('settings');
    const aFile = join(dataDir, 'a-file');
    writeFileSync(aFile, 'not a directory');
    const weakToken = 'qwertyuiopasdfghjklzxcvbnm123456';
    const bad: [SettingName, string][] = [
      ['PORT', '80800'],
      ['PORT', 'http'],
      ['HOST', 'not a host!'],
      ['ADMIN_PORT', '-1'],
      ['ADMIN_HOST', 'under_score..example'],
      ['ADMIN_TOKEN', weakToken],
      ['DATABASE_URL', 'mysql://db.example/tprm'],
      ['DATABASE_POOL_SIZE', '0'],
      ['DATA_DIR', aFile],
      ['REDIS_URL', 'http://x'],
      ['REDIS_TIMEOUT', 'fast'],
      ['PUBLIC_BASE_URL', 'notaurl'],
      ['PUBLIC_BASE_URL', 'ftp://files.example'],
      ['PUBLIC_BASE_URL', 'https://api.example?x=1'],
      ['WEBHOOK_RETRY_DELAYS', '1m,,5m'],
      ['WEBHOOK_ALLOW_INSECURE_URLS', 'yes'],
      ['WEBHOOK_TIMEOUT', '10'],
      ['WEBHOOK_DISABLE_AFTER', '5 days'],
      ['EVENT_RETENTION', '12h'],
      ['SINK_BATCH_SIZE', '10001'],
      ['SINK_BATCH_AGE', '0s'],
      ['REQUEST_TIMEOUT', '0s'],
      ['KEEP_ALIVE_TIMEOUT', 'forever'],
      ['ROLE', 'both\nall'],
      ['LOG_LEVEL', 'loud'],
    ];
    assert.deepEqual(
      [...new Set(bad.map(([name]) => name))].sort(),
      settingVariables(),
      'one bad value at least for every variable the process reads',
    );
    assert.deepEqual(Object.keys(SETTINGS).sort(), settingVariables(), '--help lists exactly those');

    const held = await Promise.all([holdPort(), holdPort()]);
    try {
      const cases: { name: SettingName; env: Record<string, string>; opensStore?: boolean }[] = [
        ...bad.map(([name, value]) => ({ name, env: { DATA_DIR: join(dataDir, 'data'), [name]: value } })),
        // A port another program holds: the store is opened first, the listener then refused.
        ...(['ADMIN_PORT', 'PORT'] as const).map((name, i) => ({
          name,
          env: { DATA_DIR: scratchDir('port'), [name]: String(held[i]?.port) },
          opensStore: true,
        })),
      ];
      // A few at a time: the machine's cores are shared.
      const ended: Ended[] = [];
      for (let i = 0; i < cases.length; i += 4)
        ended.push(...(await Promise.all(cases.slice(i, i + 4).map(({ env }) => runToEnd(env)))));
      cases.forEach(({ name, env, opensStore }, i) => {
        const { code, stdout, stderr } = ended[i] as Ended;
        const what = `${name}=${JSON.stringify(env[name])}: exit ${code}\n${stderr}\n${stdout.slice(-2000)}`;
        assert.equal(code, 2, what);
        const lines = stderr.split('\n');
        assert.equal(lines.length, 2, `one line and its newline: ${what}`);
        assert.match(lines[0] as string, new RegExp(`^tprm-api: ${name}\\b`), what);
        assert.ok(lines[0]?.includes(SETTINGS[name].form), `the accepted form: ${what}`);
        assert.doesNotMatch(stderr, /\n\s+at /, what);
        assert.ok(!`${stdout}${stderr}`.includes(weakToken), 'a token is never printed');
        if (opensStore) {
          assert.ok(existsSync(join(env.DATA_DIR as string, 'pgdata')), `the store was opened: ${what}`);
          assert.ok(
            !existsSync(join(env.DATA_DIR as string, 'tprm.lock')),
            `and unlocked on the way out: ${what}`,
          );
        }
      });
    } finally {
      for (const { server } of held) server.close();
    }
  });

  test('--help prints every setting with its default and exits 0, starting nothing and creating no DATA_DIR; an unknown argument exits 2', async () => {
    const dataDir = join(scratchDir('help'), 'data');
    const help = await runToEnd({ DATA_DIR: dataDir, LOG_LEVEL: 'loud' }, ['--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.equal(help.stderr, '');
    for (const [name, { fallback }] of Object.entries(SETTINGS)) {
      assert.match(help.stdout, new RegExp(`^  ${name} +default: `, 'm'), name);
      assert.ok(help.stdout.includes(fallback), `${name}: ${fallback}`);
    }
    assert.doesNotMatch(help.stdout, /\{"level"/, 'no log line: nothing started');
    assert.ok(!existsSync(dataDir), 'DATA_DIR is not created');

    const unknown = await runToEnd({ DATA_DIR: dataDir }, ['--port', '9']);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /^tprm-api: unknown argument "--port": [^\n]*--help[^\n]*\n$/);
    assert.ok(!existsSync(dataDir), 'DATA_DIR is not created');
  });
});

/** Every report of the workspace the key reads, following the cursor. */
async function allReports(publicUrl: string, key: string): Promise<{ id: string; pdf_status: string }[]> {
  const reports: { id: string; pdf_status: string }[] = [];
  let cursor: string | undefined;
  do {
    const res = await fetch(
      `${publicUrl}/v1/reports?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { headers: { authorization: `Bearer ${key}` } },
    );
    const body = (await res.json()) as {
      data: { id: string; pdf_status: string }[];
      has_more: boolean;
      next_cursor: string | null;
    };
    assert.equal(res.status, 200, JSON.stringify(body));
    reports.push(...body.data);
    cursor = body.has_more ? (body.next_cursor ?? undefined) : undefined;
  } while (cursor);
  return reports;
}

describe('a first start on the embedded store, standard error not a terminal', {
  skip: ENGINE !== 'pglite' && 'belongs to the embedded-store run of the suite',
}, () => {
  let dataDir: string;
  let service: ServiceProcess;
  let secrets: FirstStartSecrets;

  before(async () => {
    dataDir = join(scratchDir('first-start'), 'data');
    // A known port: the signed URLs are built from PUBLIC_BASE_URL's default, http://{HOST}:{PORT}.
    const port = String(await freePort());
    service = await startService(
      { DATA_DIR: dataDir, PORT: port, WEBHOOK_ALLOW_INSECURE_URLS: 'true' },
      90_000,
    );
    secrets = await firstStartSecrets(service);
    recordSensitive(secrets.adminToken);
    recordSensitive(secrets.apiKey);
  });
  after(async () => {
    if (service) assert.equal(await service.kill('SIGTERM'), 0);
  });

  test('P116: the secrets go to a file in DATA_DIR that only its owner can read, whose path alone is logged; neither stdout nor stderr holds a secret', async () => {
    assert.equal(secrets.file, join(dataDir, FIRST_START_FILE));
    assert.equal(statSync(secrets.file).mode & 0o777, 0o600);
    const { adminToken, apiKey } = secrets;
    assert.ok(adminToken && apiKey, secrets.text.replace(/tprm_\S+/g, 'tprm_…'));
    assert.match(
      secrets.text,
      /^Try it:\n {2}curl -s -H 'Authorization: Bearer tprm_\S+' 'http:\/\/127\.0\.0\.1:\d+\/v1\/suppliers\?limit=2'$/m,
    );

    // They work: the admin token on the management API, the demo key on the public API.
    const admin = await fetch(`${service.adminUrl}/admin/workspaces`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    assert.equal(admin.status, 200, await admin.text());
    const api = await fetch(`${service.publicUrl}/v1/suppliers?limit=2`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    assert.equal(api.status, 200, await api.text());

    const output = service.output.join('\n');
    assert.deepEqual(findLeaks(output, [adminToken, apiKey], 'output'), []);
    for (const line of service.output) assert.doesNotThrow(() => JSON.parse(line), `a log line: ${line}`);
  });

  test('P119: the demo reports are rendered in the background after readiness; the first PDF downloads through its signed URL', async () => {
    const key = secrets.apiKey as string;
    // Twice a second: well inside the workspace's rate limits (60 a second, 600 a minute) however long it takes.
    const reports = await eventually(async () => {
      await sleep(500);
      const all = await allReports(service.publicUrl as string, key);
      return all.length > 0 && all.every((report) => report.pdf_status === 'ready') && all;
    }, 120_000);
    // The line is written once the last report is committed: it may follow the answer just read.
    const messages = await eventually(async () => {
      const all = service.output.map((line) => JSON.parse(line).msg as string);
      return all.includes('demo report PDFs rendered') && all;
    });
    assert.ok(
      messages.indexOf('tprm-api ready') < messages.indexOf('demo report PDFs rendered'),
      'ready before the PDFs are rendered',
    );

    const first = reports[0] as { id: string };
    const redirect = await fetch(`${service.publicUrl}/v1/reports/${first.id}/pdf`, {
      headers: { authorization: `Bearer ${key}` },
      redirect: 'manual',
    });
    assert.equal(redirect.status, 302, await redirect.text());
    const location = redirect.headers.get('location') as string;
    assert.ok(location.startsWith(`${service.publicUrl}/`), location.slice(0, 40));
    const pdf = await fetch(location);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.equal(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString('latin1'),
      '%PDF-',
    );
  });

  test('P118: WEBHOOK_ALLOW_INSECURE_URLS=true logs a warning at start, before the ready line', () => {
    const records = service.output.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    const warning = records.findIndex((r) => r.level === 40 && r.setting === 'WEBHOOK_ALLOW_INSECURE_URLS');
    assert.ok(warning >= 0, 'a warning names the setting');
    assert.ok(warning < records.findIndex((r) => r.msg === 'tprm-api ready'));
  });
});

/** `script` (util-linux) runs a program on a pseudo-terminal: what a person starting the service sees. */
const scriptUnavailable = (() => {
  if (ENGINE !== 'pglite') return 'belongs to the embedded-store run of the suite';
  for (const dir of (process.env.PATH ?? '').split(':'))
    if (existsSync(join(dir, 'script'))) return undefined;
  return 'script (util-linux) is not installed';
})();

test('P116: on a terminal, a first start shows the secrets on standard error; standard output (the log) has none, and no file is written', {
  skip: scriptUnavailable,
}, async () => {
  const dir = scratchDir('terminal');
  const dataDir = join(dir, 'data');
  const stdoutFile = join(dir, 'stdout.log');
  // Standard error stays on the terminal; standard output goes to a file, as to a log collector.
  const child: ChildProcess = spawn(
    'script',
    ['-qec', `exec '${process.execPath}' '${MAIN}' > '${stdoutFile}'`, '/dev/null'],
    {
      env: { PATH: process.env.PATH ?? '', SHELL: '/bin/sh', DATA_DIR: dataDir, PORT: '0', ADMIN_PORT: '0' },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let terminal = '';
  child.stdout?.on('data', (chunk) => {
    terminal += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let secrets: string[];
  try {
    await eventually(async () => /^Try it:\r?\n.*curl[^\n]*\n/m.test(terminal), 90_000);
    const adminToken = /Admin token \(shown once; only its hash is kept\): (\S+)/.exec(terminal)?.[1];
    const apiKey = /Demo API key, every scope \(shown once\): (\S+)/.exec(terminal)?.[1];
    assert.ok(adminToken && apiKey, 'both secrets on the terminal');
    recordSensitive(adminToken);
    recordSensitive(apiKey);
    secrets = [adminToken, apiKey];
    assert.ok(!existsSync(join(dataDir, FIRST_START_FILE)), 'no file when a terminal showed them');
  } finally {
    // The service (script's one child, by its pid) stops cleanly on SIGTERM; script ends with it.
    const children = `/proc/${child.pid}/task/${child.pid}/children`;
    const service = existsSync(children) ? Number(readFileSync(children, 'utf8').trim()) : 0;
    if (service > 0) process.kill(service, 'SIGTERM');
    else child.kill('SIGTERM');
    await exited;
  }
  // Read once the service has ended: its log lines may be written after the terminal's text.
  const log = readFileSync(stdoutFile, 'utf8');
  assert.match(log, /"msg":"tprm-api ready"/);
  assert.match(log, /"msg":"stopped"/);
  assert.deepEqual(findLeaks(log, secrets, 'stdout'), []);
});

describe('a PostgreSQL server (P117)', {
  skip: ENGINE !== 'postgres' && 'belongs to the PostgreSQL run of the suite',
}, () => {
  const { h } = useHarness();

  test('no ADMIN_TOKEN and no token kept in the database: exit 2 with one line naming ADMIN_TOKEN; no token is minted', async () => {
    const ended = await runToEnd({ DATABASE_URL: h.databaseUrl as string, DATA_DIR: scratchDir('pg-token') });
    assert.equal(ended.code, 2, ended.stderr);
    assert.match(ended.stderr, /^tprm-api: ADMIN_TOKEN must be set with DATABASE_URL[^\n]*\n$/);
    assert.ok(ended.stderr.includes(SETTINGS.ADMIN_TOKEN.form));
    assert.doesNotMatch(ended.stdout, /tprm_admin_/);
    assert.equal(await readSetting(h.db, 'admin_token_sha256'), null);
  });

  test("a token's hash kept in the database (an embedded store copied over): starts without ADMIN_TOKEN and accepts that token, showing nothing", async () => {
    const token = generateAdminToken();
    recordSensitive(token);
    await writeSetting(h.db, 'admin_token_sha256', sha256(token).toString('base64'));
    const dataDir = scratchDir('pg-token');
    const service = await startService({ DATABASE_URL: h.databaseUrl as string, DATA_DIR: dataDir }, 60_000);
    try {
      const res = await fetch(`${service.adminUrl}/admin/workspaces`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(res.status, 200, await res.text());
      const wrong = await fetch(`${service.adminUrl}/admin/workspaces`, {
        headers: { authorization: `Bearer tprm_admin_${randomBytes(32).toString('base64url')}` },
      });
      assert.equal(wrong.status, 401);
      assert.doesNotMatch(service.output.join('\n'), /shown once/);
      assert.ok(!existsSync(join(dataDir, FIRST_START_FILE)));
    } finally {
      assert.equal(await service.kill('SIGTERM'), 0);
    }
  });
});

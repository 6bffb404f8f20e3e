// management-api.md "CLI": the real tprm command (bin/tprm.js) run as a child process against the real
// management API listening on a loopback port, plus a stub server where the admin endpoint is not ours to
// drive (lifecycle actions, the seed's handling of collections the server refuses).
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { ContractEventTypes } from '../../src/contract/events.js';
import { importCollectionNames } from '../../src/management/import.js';
import { SCOPES } from '../../src/schema/fields.js';
import { countSeedRecords, generateSeedDocument } from '../../src/seed/index.js';
import { lockDataDir } from '../../src/storage/lock.js';
import { loadMigrations } from '../../src/storage/migrations.js';
import { useCliHarness } from '../support/cli.js';

const { h, tprm, ok, dir } = useCliHarness();

const newWorkspace = async (name = 'CLI workspace') =>
  (await ok(['workspaces', 'create', '--name', name, '--plan', 'enterprise', '--json'])).json;

/** `tprm endpoints create` of an alert.created endpoint at `url`, parsed from --json. */
const newEndpoint = async (workspaceId: string, url: string) =>
  (await ok(['endpoints', 'create', workspaceId, '--url', url, '--events', 'alert.created', '--json'])).json;

describe('help and usage', () => {
  test('--help prints the usage, every command group, the environment and examples; exit 0', async () => {
    const run = await ok(['--help']);
    assert.match(run.stdout, /^Usage: tprm /);
    for (const group of [
      'workspaces',
      'users',
      'keys',
      'endpoints',
      'import',
      'seed',
      'migrate',
      'assessments',
      'reports',
      'alerts',
      'assets',
      'items',
      'audit',
    ])
      assert.match(run.stdout, new RegExp(`\\n  ${group}\\b`), group);
    assert.match(run.stdout, /ADMIN_URL/);
    assert.match(run.stdout, /ADMIN_TOKEN/);
    assert.match(run.stdout, /Examples:/);
  });

  test('every subcommand has its own --help with its options, the global ones and examples', async () => {
    const run = await ok(['keys', 'create', '--help']);
    assert.match(run.stdout, /Usage: tprm keys create \[options\] <workspace-id>/);
    for (const option of ['--scopes', '--created-by', '--expires-at', '--json', '--admin-url'])
      assert.match(run.stdout, new RegExp(option), option);
    assert.match(run.stdout, /Examples:\n {2}\$ tprm keys create/);
  });

  test('--version prints the version of the package, exit 0', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8'));
    const run = await ok(['--version']);
    assert.equal(run.stdout, `${pkg.version}\n`);
    assert.equal(run.stderr, '');
  });

  test('--version loads fewer than 25 modules of src/, and a command loads contracts but no handler', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tprm-modules-'));
    /** The modules of dist/src/ that `tprm args…` loads, as a module hook of its process records them. */
    const loadedBy = async (args: string[]) => {
      const file = join(dir, `${randomUUID()}.txt`);
      // Hooks run on their own thread in Node 20: each load is written down at once, whatever the exit.
      const hooks = `import { appendFileSync } from 'node:fs';
        export async function load(url, context, next) {
          if (url.startsWith('file:')) appendFileSync(${JSON.stringify(file)}, url + '\\n');
          return next(url, context);
        }`;
      const entry = `import { register } from 'node:module';
        register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
      await ok(args, { nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(entry)}`] });
      return (await readFile(file, 'utf8')).split('\n').filter((url) => url.includes('/dist/src/'));
    };
    const atStart = await loadedBy(['--version']);
    assert.ok(
      atStart.some((url) => url.endsWith('/dist/src/cli/main.js')),
      'the hook sees the CLI',
    );
    assert.ok(atStart.length < 25, `${atStart.length} modules of src/ for --version:\n${atStart.join('\n')}`);
    const command = await loadedBy(['workspaces', 'list', '--json']);
    assert.ok(
      command.some((url) => url.endsWith('/management/operations.js')),
      'the command loads the contracts',
    );
    const handlers =
      /\/resources\/[^/]+\/(admin|routes)\.js$|\/management\/(handlers|actions|app|import)\.js$/;
    assert.deepEqual(
      command.filter((url) => handlers.test(url) || url.includes('/dist/src/storage/')),
      [],
    );
  });

  test('start-up loads none of the server machinery (fastify, ajv, pg, pdfkit, ioredis, pino)', async () => {
    // The commands read the operations' contracts, never the handlers (below); the commands that run the
    // service or open a database load it when they run. Reports the CommonJS modules loaded by exit.
    const probe = `import { createRequire } from 'node:module';
      process.on('exit', () => process.stderr.write(JSON.stringify(Object.keys(createRequire('/').cache))));`;
    const run = await ok(['--help'], {
      nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(probe)}`],
    });
    const loaded: string[] = JSON.parse(run.stderr);
    assert.ok(
      loaded.some((file) => file.includes('/commander/')),
      'the probe sees the loaded modules',
    );
    const heavy = ['fastify', 'ajv', 'pg', 'pdfkit', 'ioredis', 'pino'];
    assert.deepEqual(
      loaded.filter((file) => heavy.some((name) => file.includes(`/node_modules/${name}/`))),
      [],
    );
  });

  test('a usage error (missing required option, unknown option) exits 2 with the problem on stderr', async () => {
    const missing = await tprm(['workspaces', 'create', '--plan', 'enterprise']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /required option '--name <name>' not specified/);
    const unknown = await tprm(['workspaces', 'list', '--bogus']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown option '--bogus'/);
    const nothing = await tprm(['workspaces', 'update', randomUUID()]);
    assert.equal(nothing.code, 2, 'an update without a change is refused before any request');
    assert.match(nothing.stderr, /nothing to update/);
  });
});

describe('workspaces', () => {
  test('create --json prints the 201 Workspace; list, get and update show it', async () => {
    const created = (
      await ok(['workspaces', 'create', '--name', 'Acme CLI', '--plan', 'business', '--quota', '7', '--json'])
    ).json;
    assert.equal(created.name, 'Acme CLI');
    assert.equal(created.plan, 'business');
    assert.equal(created.assessment_quota, 7);
    assert.match(created.id, /^[0-9a-f-]{36}$/);
    assert.equal(typeof created.created_at, 'string');

    const defaults = (await ok(['ws', 'create', '--name', 'Default quota', '--plan', 'starter', '--json']))
      .json;
    assert.equal(defaults.assessment_quota, 100, 'no --quota: the API default 100 applies');

    const list = await ok(['workspaces', 'list', '--json']);
    assert.ok(list.json.data.some((w: { id: string }) => w.id === created.id));
    const table = await ok(['workspaces', 'list']);
    assert.match(table.stdout, /^ID +NAME +PLAN +QUOTA +CREATED AT\n/);
    assert.match(table.stdout, new RegExp(`${created.id} +Acme CLI +business +7 `));

    const got = await ok(['workspaces', 'get', created.id]);
    assert.match(got.stdout, new RegExp(`^id +${created.id}$`, 'm'));
    assert.match(got.stdout, /^plan +business$/m);

    const updated = (await ok(['workspaces', 'update', created.id, '--plan', 'enterprise', '--json'])).json;
    assert.equal(updated.plan, 'enterprise');
    assert.equal(updated.name, 'Acme CLI', 'fields not given stay as they were');
    assert.equal((await h.admin('GET', `/admin/workspaces/${created.id}`)).json.plan, 'enterprise');
  });
});

describe('users and API keys', () => {
  test('a key secret is printed once, works on the public API, is absent from the list, and revocation stops it', async () => {
    const ws = await newWorkspace();
    const user = (
      await ok(['users', 'create', ws.id, '--name', 'Ada L', '--email', 'ada@cli.example', '--json'])
    ).json;
    assert.equal(user.email, 'ada@cli.example');

    // users list: the API's listing with --json, a table for people.
    const users = await ok(['users', 'list', ws.id, '--json']);
    assert.deepEqual(users.json, { data: [user] });
    const usersTable = await ok(['users', 'list', ws.id]);
    assert.match(usersTable.stdout, /^ID +NAME +EMAIL +CREATED AT\n/);
    assert.match(
      usersTable.stdout,
      new RegExp(`^${user.id} +Ada L +ada@cli\\.example +${user.created_at}$`, 'm'),
    );

    const key = await ok([
      'keys',
      'create',
      ws.id,
      '--name',
      'ci',
      '--scopes',
      'all',
      '--created-by',
      user.id,
      '--json',
    ]);
    assert.deepEqual(key.json.scopes, [...SCOPES], '"all" expands to every scope');
    assert.equal(key.json.created_by, user.id);
    assert.ok(key.json.secret.startsWith(key.json.prefix));
    assert.match(key.stderr, /shown only once and cannot be shown again/);

    // The human form prints the secret once, with the warning.
    const human = await ok([
      'keys',
      'create',
      ws.id,
      '--name',
      'ro',
      '--scopes',
      'suppliers:read',
      '--created-by',
      user.id,
    ]);
    const secret = /\n {2}(tprm_\S+)\n/.exec(human.stdout)?.[1];
    assert.ok(secret, human.stdout);
    assert.equal(human.stdout.split(secret).length, 2, 'the secret appears exactly once');
    assert.match(human.stdout, /cannot be shown again/);

    assert.equal((await h.api('GET', '/suppliers', { key: key.json.secret })).status, 200);

    const list = await ok(['keys', 'list', ws.id, '--json']);
    assert.equal(list.json.data.length, 2);
    for (const item of list.json.data) {
      assert.equal('secret' in item, false, 'GET api-keys never returns the secret');
      assert.equal(item.revoked_at, null);
    }
    const table = await ok(['keys', 'list', ws.id]);
    assert.equal(table.stdout.includes(key.json.secret), false);
    assert.match(table.stdout, new RegExp(`${key.json.id} +ci +${key.json.prefix} +active +all \\(16\\)`));

    const revoked = (await ok(['keys', 'revoke', key.json.id, '--json'])).json;
    assert.equal(revoked.id, key.json.id);
    assert.equal(typeof revoked.revoked_at, 'string');
    // management-api.md: "The next public request with it gets 401."
    assert.equal((await h.api('GET', '/suppliers', { key: key.json.secret })).status, 401);
    assert.match((await ok(['keys', 'list', ws.id])).stdout, new RegExp(`${key.json.id} +ci +\\S+ +revoked`));
  });

  test('a key for a user of another workspace fails with the API field error (text, and JSON with --json)', async () => {
    const ws = await newWorkspace();
    const other = await h.workspace();
    const args = ['keys', 'create', ws.id, '--name', 'x', '--scopes', 'all', '--created-by', other.userId];
    const run = await tprm(args);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /\(validation_failed, HTTP 422\)/);
    assert.match(run.stderr, /created_by: /);
    // With --json the same error as one JSON object, the API's details included (P79).
    const json = await tprm([...args, '--json']);
    assert.equal(json.code, 1);
    const { error } = JSON.parse(json.stderr);
    assert.equal(error.code, 'validation_failed');
    assert.equal(error.status, 422);
    assert.equal(typeof error.details.fields.created_by, 'string');
  });
});

describe('webhook endpoints', () => {
  test('register with an https URL prints the signing secret once; update and delete', async () => {
    const ws = await newWorkspace();
    const created = await ok([
      'endpoints',
      'create',
      ws.id,
      '--url',
      'https://hooks.example.com/tprm',
      '--events',
      'assessment.completed,alert.created',
      '--description',
      'main',
      '--json',
    ]);
    assert.deepEqual(created.json.events, ['assessment.completed', 'alert.created']);
    assert.equal(created.json.enabled, true);
    assert.match(created.json.signing_secret, /\S{16,}/);
    assert.match(created.stderr, /cannot be shown again/);

    const human = await ok([
      'endpoints',
      'create',
      ws.id,
      '--url',
      'https://hooks.example.com/b',
      '--events',
      'all',
    ]);
    assert.match(
      human.stdout,
      /events +assessment.completed, report.ready, alert.created, action_plan_item.status_changed/,
    );
    assert.match(human.stdout, /signing_secret\):\n {2}\S+\n/);
    assert.match(human.stdout, /cannot be shown again/);

    // list and get show the endpoints without their secrets.
    const { signing_secret: _secret, ...endpoint } = created.json;
    const listed = (await ok(['endpoints', 'list', ws.id, '--json'])).json;
    assert.equal(listed.data.length, 2);
    assert.deepEqual(listed.data[1], endpoint, 'newest first: the first one registered is last');
    for (const item of listed.data) assert.equal('signing_secret' in item, false);
    const listTable = await ok(['endpoints', 'list', ws.id]);
    assert.match(listTable.stdout, /^ID +URL +EVENTS +ENABLED +DESCRIPTION +CREATED AT\n/);
    assert.match(
      listTable.stdout,
      new RegExp(
        `^${endpoint.id} +https://hooks\\.example\\.com/tprm +assessment\\.completed, alert\\.created +true +main `,
        'm',
      ),
    );
    assert.equal(listTable.stdout.includes(created.json.signing_secret), false);
    assert.deepEqual((await ok(['endpoints', 'get', endpoint.id, '--json'])).json, endpoint);
    const got = await ok(['endpoints', 'get', endpoint.id]);
    assert.match(got.stdout, new RegExp(`^id +${endpoint.id}$`, 'm'));
    assert.match(got.stdout, /^url +https:\/\/hooks\.example\.com\/tprm$/m);
    assert.match(got.stdout, /^enabled +true$/m);
    assert.equal(got.stdout.includes(created.json.signing_secret), false);

    const updated = (
      await ok(['endpoints', 'update', created.json.id, '--disable', '--description', '', '--json'])
    ).json;
    assert.equal(updated.enabled, false);
    assert.equal(updated.description, null, 'an empty --description clears it');
    assert.equal('signing_secret' in updated, false);
    assert.equal(updated.url, 'https://hooks.example.com/tprm');

    const deleted = await ok(['endpoints', 'delete', created.json.id, '--json']);
    assert.deepEqual(deleted.json, { id: created.json.id, deleted: true });
    const again = await tprm(['endpoints', 'delete', created.json.id]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /\(resource_not_found, HTTP 404\)/);
  });

  test('rotate-secret prints the new secret once; deliveries lists attempts; replay one or a range', async () => {
    const ws = await newWorkspace();
    const created = await newEndpoint(ws.id, 'https://hooks.example.com/r');
    const id = created.id as string;
    const rotated = await ok(['endpoints', 'rotate-secret', id, '--overlap', '2h', '--json']);
    assert.match(rotated.json.signing_secret, /^whsec_/);
    assert.notEqual(rotated.json.signing_secret, created.signing_secret);
    assert.ok(Date.parse(rotated.json.previous_secret_expires_at) > Date.now() + 7_000_000);
    assert.match(rotated.stderr, /cannot be shown again/);
    const human = await ok(['endpoints', 'rotate-secret', id]);
    assert.match(human.stdout, /signing_secret\):\n {2}whsec_\S+\n/);

    // No worker runs here: the alert's attempt stays pending until the test marks it exhausted.
    const alert = await h.admin('POST', `/admin/workspaces/${ws.id}/alerts`, {
      scope: 'org',
      severity: 'low',
      title: 't',
      body: 'b',
    });
    assert.equal(alert.status, 201);
    const listed = await ok(['endpoints', 'deliveries', id, '--json']);
    assert.equal(listed.json.data.length, 1);
    assert.equal(listed.json.data[0].status, 'pending');
    const busy = await tprm(['deliveries', 'replay', listed.json.data[0].id]);
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, /\(conflict, HTTP 409\)/);

    await h.db.query(`update webhook_deliveries set status = 'exhausted' where endpoint_id = $1`, [id]);
    const table = await ok(['endpoints', 'deliveries', id]);
    assert.match(table.stdout, /^ATTEMPTED \(UTC\) +EVENT +# +STATUS +HTTP +MS +ERROR\n/);
    assert.match(table.stdout, /alert\.created +1 +exhausted/);
    assert.match(table.stdout, /\n\n1 delivery\.\n$/);
    const one = await ok(['deliveries', 'replay', listed.json.data[0].id, '--json']);
    assert.equal(one.json.attempt, 2);
    assert.equal(one.json.event_id, listed.json.data[0].event_id);

    await h.db.query(`update webhook_deliveries set status = 'exhausted' where endpoint_id = $1`, [id]);
    const range = await ok(['endpoints', 'replay', id, '--from', '2000-01-01T00:00:00Z']);
    assert.match(range.stdout, /Replaying 1 delivery\./);
    const missing = await tprm(['endpoints', 'replay', id]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--from/);
  });

  test('endpoints test sends a test event of the type given to that endpoint (P81)', async () => {
    const ws = await newWorkspace();
    const id = (await newEndpoint(ws.id, 'https://hooks.example.com/t')).id as string;
    const sent = await ok(['endpoints', 'test', id, '--event', 'report.ready', '--json']);
    assert.equal(sent.json.endpoint_id, id);
    assert.equal(sent.json.event_type, 'report.ready');
    assert.equal(sent.json.test, true);
    assert.equal(sent.json.status, 'pending');
    const human = await ok(['endpoints', 'test', id, '--event', 'alert.created']);
    assert.match(human.stdout, /^test +true$/m);
    const listed = await ok(['endpoints', 'deliveries', id, '--json']);
    assert.equal(listed.json.data.length, 2);
    for (const args of [
      ['endpoints', 'test', id],
      ['endpoints', 'test', id, '--event', 'supplier.deleted'],
    ]) {
      const refused = await tprm(args);
      assert.equal(refused.code, 2, args.join(' '));
      assert.match(refused.stderr, /--event/);
    }
  });

  test('an http:// URL is refused with the field message (WEBHOOK_ALLOW_INSECURE_URLS false)', async () => {
    const ws = await newWorkspace();
    const run = await tprm([
      'endpoints',
      'create',
      ws.id,
      '--url',
      'http://hooks.example.com/x',
      '--events',
      'all',
    ]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /validation_failed/);
    assert.match(run.stderr, /\n {2}url: .*https/);
  });
});

describe('import', () => {
  test('a JSON file and stdin (-) are imported; the records are visible on the public API', async () => {
    const ws = await h.workspace();
    const file = join(dir(), 'suppliers.json');
    await writeFile(
      file,
      JSON.stringify({
        suppliers: [
          { name: 'Imported One', domain: 'one.cli.example' },
          { name: 'Imported Two', domain: 'two.cli.example' },
        ],
      }),
    );
    const fromFile = await ok(['import', ws.id, file, '--json']);
    assert.deepEqual(fromFile.json.created, { suppliers: 2 });
    const human = await ok(['import', ws.id, '-'], {
      input: JSON.stringify({ suppliers: [{ name: 'From stdin', domain: 'stdin.cli.example' }] }),
    });
    assert.match(human.stdout, /^COLLECTION +CREATED\nsuppliers +1\n/);
    assert.match(human.stdout, /Imported 1 record into/);

    const names = (await h.api('GET', '/suppliers?limit=100', { key: ws.key })).json.data.map(
      (s: { name: string }) => s.name,
    );
    assert.deepEqual(names.sort(), ['From stdin', 'Imported One', 'Imported Two']);
  });

  test('an invalid record fails with the field paths; an unreadable or non-JSON file fails before any request', async () => {
    const ws = await h.workspace();
    const invalid = await tprm(['import', ws.id, '-'], {
      input: JSON.stringify({ suppliers: [{ name: 'ok' }, { name: 'bad', criticality: 'nope' }] }),
    });
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /\(validation_failed, HTTP 422\)/);
    assert.match(invalid.stderr, /suppliers\[1\]\.criticality: /);
    assert.equal((await h.api('GET', '/suppliers', { key: ws.key })).json.data.length, 0, 'nothing written');

    const notJson = await tprm(['import', ws.id, '-'], { input: '{oops' });
    assert.equal(notJson.code, 1);
    assert.match(notJson.stderr, /stdin is not valid JSON/);
    const missing = await tprm(['import', ws.id, join(dir(), 'nope.json')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Cannot read .*nope\.json/);
  });
});

describe('audit verify', () => {
  test('an intact chain: the count and head hash, exit 0; an edited entry: named with its position, exit 1 (P97)', async () => {
    const ws = await h.workspace();
    const entries = await h.db.query<{ id: string; hash: string }>(
      'select id, hash from audit_logs where workspace_id = $1 order by occurred_at, id',
      [ws.id],
    );
    const intact = await ok(['audit', 'verify', ws.id]);
    assert.match(intact.stdout, new RegExp(`entries checked +${entries.length}\n`));
    assert.match(intact.stdout, new RegExp(`head hash +${entries.at(-1)?.hash}\n`));
    assert.match(intact.stdout, /the chain is intact/);

    const edited = entries[1];
    assert.ok(edited);
    await h.db.query(`update audit_logs set request_id = 'forged' where workspace_id = $1 and id = $2`, [
      ws.id,
      edited.id,
    ]);
    const broken = await tprm(['audit', 'verify', ws.id]);
    assert.equal(broken.code, 1);
    assert.match(broken.stdout, new RegExp(`broken at entry +${edited.id}\n`));
    assert.match(broken.stdout, /position +2\n/);
    assert.match(broken.stdout, /problem +hash_mismatch\n/);
    assert.match(broken.stdout, new RegExp(`stored +${edited.hash}\n`));
    assert.match(
      broken.stderr,
      new RegExp(`error: the audit chain is broken at entry ${edited.id} \\(position 2`),
    );
    const json = await tprm(['audit', 'verify', ws.id, '--json']);
    assert.equal(json.code, 1);
    assert.equal(json.json.valid, false);
    assert.deepEqual(
      { id: json.json.first_broken.id, position: json.json.first_broken.position },
      { id: edited.id, position: 2 },
    );
  });

  test('--chunk-size: a chunk a request with progress on stderr; stdout and the exit code are those of the whole check (P103)', async () => {
    const ws = await h.workspace();
    for (let i = 0; i < 5; i++)
      await h.adminClient.updateWorkspace({ params: { id: ws.id }, body: { assessment_quota: 20 + i } });
    const entries = await h.db.query<{ id: string }>(
      'select id from audit_logs where workspace_id = $1 order by occurred_at, id',
      [ws.id],
    );
    assert.equal(entries.length, 8);
    const whole = await h.adminClient.verifyAuditChain({ params: { id: ws.id } });
    const chunked = await ok(['audit', 'verify', ws.id, '--chunk-size', '3', '--json']);
    assert.deepEqual(chunked.json, whole);
    // Not a terminal: plain progress lines, the last one at the end.
    assert.match(chunked.stderr, /^audit verify: 8\/8 entries \(100%\)/m);

    const edited = entries[6];
    await h.db.query(`update audit_logs set request_id = 'forged' where workspace_id = $1 and id = $2`, [
      ws.id,
      edited?.id,
    ]);
    const broken = await tprm(['audit', 'verify', ws.id, '--chunk-size', '3', '--json']);
    assert.equal(broken.code, 1);
    assert.deepEqual(broken.json, await h.adminClient.verifyAuditChain({ params: { id: ws.id } }));
    assert.equal(broken.json.first_broken?.position, 7);
    // Progress lines, then the error (a JSON object on the last line, with --json).
    assert.match(
      JSON.parse(broken.stderr.trimEnd().split('\n').at(-1) as string).error.message,
      new RegExp(`^the audit chain is broken at entry ${edited?.id} \\(position 7`),
    );
  });

  test('--chunk-size: one request a chunk, each continuing from the cursor the one before gave (P103)', async (t) => {
    const id = randomUUID();
    const part = (checked: number, cursor: string | null) => ({
      workspace_id: id,
      valid: true,
      entries_checked: checked,
      entries_total: 7,
      head_hash: 'a'.repeat(64),
      first_broken: null,
      next_cursor: cursor,
    });
    const answers = [part(3, 'c1'), part(6, 'c/2'), part(7, null)];
    const server = await stub((_seen, res) => send(res, 200, answers.shift()));
    t.after(() => server.close());
    const run = await ok(['audit', 'verify', id, '--chunk-size', '3', '--json'], {
      env: { ADMIN_URL: server.url },
    });
    const path = `/admin/workspaces/${id}/audit-chain`;
    assert.deepEqual(
      server.seen.map((request) => request.url),
      [`${path}?limit=3`, `${path}?limit=3&cursor=c1`, `${path}?limit=3&cursor=c%2F2`],
    );
    assert.deepEqual(run.json, part(7, null));
    assert.match(run.stderr, /^audit verify: 7\/7 entries \(100%\)/m);
  });

  test('the last entry deleted: head_mismatch after the last entry left, exit 1 (P99)', async () => {
    const ws = await h.workspace();
    const entries = await h.db.query<{ id: string; hash: string }>(
      'select id, hash from audit_logs where workspace_id = $1 order by occurred_at, id',
      [ws.id],
    );
    await h.db.query('delete from audit_logs where workspace_id = $1 and id = $2', [
      ws.id,
      entries.at(-1)?.id,
    ]);
    const broken = await tprm(['audit', 'verify', ws.id]);
    assert.equal(broken.code, 1);
    assert.match(broken.stdout, /problem +head_mismatch\n/);
    assert.match(broken.stdout, new RegExp(`position +${entries.length}\n`));
    assert.match(broken.stdout, new RegExp(`expected +${entries.at(-1)?.hash}\n`));
    assert.match(
      broken.stderr,
      new RegExp(
        `error: the audit chain is broken after entry ${entries.length - 1}: its last entries are missing`,
      ),
    );
  });
});

describe('seed', () => {
  test('--suppliers 20 imports the generated set in batches; what the server refuses is skipped', async () => {
    const ws = await h.workspace();
    const options = { size: { suppliers: 20 }, seed: 3 };
    const total = countSeedRecords(options);
    const run = await ok([
      'seed',
      ws.id,
      '--suppliers',
      '20',
      '--seed',
      '3',
      '--batch-size',
      '100',
      '--json',
    ]);
    const summary = run.json;
    assert.equal(summary.records, total);
    assert.equal(summary.batches, Math.ceil(total / 100), 'batches of 100 records');

    // Exactly the generated counts of every collection the server knows; the rest skipped and said once.
    const document = generateSeedDocument(options);
    const known = new Set(importCollectionNames());
    const expected = Object.fromEntries(
      Object.entries(document)
        .filter(([name]) => known.has(name))
        .map(([name, records]) => [name, records.length]),
    );
    assert.deepEqual(summary.created, expected);
    const refused = Object.keys(document).filter((name) => !known.has(name));
    assert.deepEqual([...summary.skipped_collections].sort(), refused.sort());
    for (const name of refused) {
      assert.equal(summary.skipped[name], document[name]?.length);
      assert.equal(run.stderr.split(`"${name}"`).length, 2, `${name} is reported once`);
    }
    // Not a TTY: plain progress lines, the last one complete.
    assert.match(run.stderr, new RegExp(`seed: ${total}/${total} records \\(100%\\)`));

    const suppliers = await h.api('GET', '/suppliers?limit=100', { key: ws.key });
    assert.equal(suppliers.status, 200);
    assert.equal(suppliers.json.data.length, 20);
    assert.deepEqual(
      suppliers.json.data.map((s: { id: string }) => s.id).sort(),
      document.suppliers?.map((s) => s.id).sort(),
    );
  });

  test('an unknown workspace fails before generating anything', async () => {
    const run = await tprm(['seed', randomUUID(), '--suppliers', '5']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /No such workspace\. \(resource_not_found, HTTP 404\)/);
    assert.doesNotMatch(run.stderr, /seed: /);
  });
});

describe('errors', () => {
  test('an unknown workspace exits 1 with the API message, code and request id on stderr', async () => {
    const run = await tprm(['workspaces', 'get', randomUUID()]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      /^error: No such workspace\. \(resource_not_found, HTTP 404\)\n {2}request id: \S+\n$/,
    );
  });

  test('with --json an API error is one JSON error object on stderr, a bad file a cli_error; exit 1; usage errors stay exit 2', async () => {
    const notFound = await tprm(['workspaces', 'get', randomUUID(), '--json']);
    assert.equal(notFound.code, 1);
    assert.equal(notFound.stdout, '');
    const error = JSON.parse(notFound.stderr);
    assert.deepEqual(Object.keys(error), ['error']);
    assert.equal(typeof error.error.request_id, 'string');
    assert.deepEqual(error.error, {
      code: 'resource_not_found',
      message: 'No such workspace.',
      status: 404,
      request_id: error.error.request_id,
    });

    const ws = await newWorkspace();
    const badFile = await tprm(['import', ws.id, join(dir(), 'nope.json'), '--json']);
    assert.equal(badFile.code, 1);
    const local = JSON.parse(badFile.stderr).error;
    assert.equal(local.code, 'cli_error');
    assert.match(local.message, /^Cannot read .*nope\.json/);

    const usage = await tprm(['workspaces', 'create', '--plan', 'enterprise', '--json']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /required option '--name <name>' not specified/);
  });

  test('a wrong admin token exits 1 with invalid_api_key; no token at all says how to set it', async () => {
    const wrong = await tprm(['workspaces', 'list'], { env: { ADMIN_TOKEN: 'not-the-token' } });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /\(invalid_api_key, HTTP 401\)/);
    // --admin-token wins over the environment.
    const flag = await tprm(['workspaces', 'list', '--json', '--admin-token', h.adminToken], {
      env: { ADMIN_TOKEN: 'not-the-token' },
    });
    assert.equal(flag.code, 0, flag.stderr);
    const none = await tprm(['workspaces', 'list'], { env: { ADMIN_TOKEN: undefined } });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /set ADMIN_TOKEN/);
  });

  test('an unreachable server or a malformed ADMIN_URL exits 1 naming the URL (text, and JSON with --json)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const run = await tprm(['workspaces', 'list', '--admin-url', `http://127.0.0.1:${port}`]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, new RegExp(`Cannot reach the management API at http://127.0.0.1:${port}`));
    // With --json, a local failure is a cli_error with the same message (P79).
    const json = await tprm(['workspaces', 'list', '--json', '--admin-url', `http://127.0.0.1:${port}`]);
    assert.equal(json.code, 1);
    assert.equal(json.stdout, '');
    const { error } = JSON.parse(json.stderr);
    assert.deepEqual(Object.keys(error).sort(), ['code', 'message']);
    assert.equal(error.code, 'cli_error');
    assert.match(error.message, new RegExp(`^Cannot reach the management API at http://127.0.0.1:${port} `));
    const malformed = await tprm(['workspaces', 'list'], { env: { ADMIN_URL: 'ftp://x' } });
    assert.equal(malformed.code, 1);
    assert.match(malformed.stderr, /not an http\(s\) URL/);
  });
});

// ---------------------------------------------------------------- against a stub management API

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: recorded JSON bodies
  body: any;
}

/** A stand-in management API: records each request and answers with `answer`. */
async function stub(answer: (seen: Seen, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      const entry = {
        method: req.method as string,
        url: req.url as string,
        authorization: req.headers.authorization,
        body: text ? JSON.parse(text) : undefined,
      };
      seen.push(entry);
      answer(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { seen, url, close: () => new Promise((resolve) => server.close(resolve)) };
}

const send = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

describe('every command calls its documented path and body (management-api.md "Endpoints")', () => {
  test('lifecycle and remaining commands', async (t) => {
    const server = await stub((_seen, res) => send(res, 200, { id: 'x', ok: true }));
    t.after(() => server.close());
    const id = randomUUID();
    const cases: [args: string[], method: string, url: string, body: unknown][] = [
      [
        ['assessments', 'set-status', id, '--status', 'completed', '--decision', 'approved'],
        'POST',
        `/admin/assessments/${id}/status`,
        { status: 'completed', decision: 'approved' },
      ],
      [
        ['assessments', 'set-status', id, '--status', 'paused'],
        'POST',
        `/admin/assessments/${id}/status`,
        { status: 'paused' },
      ],
      // The route's body is optional fields only ({workspace_id}): none given, an empty object.
      [['reports', 'render', id], 'POST', `/admin/reports/${id}/render`, {}],
      [
        [
          'alerts',
          'create',
          id,
          '--scope',
          'supplier',
          '--supplier-id',
          's1',
          '--severity',
          'high',
          '--title',
          'T',
          '--body',
          'B',
        ],
        'POST',
        `/admin/workspaces/${id}/alerts`,
        { scope: 'supplier', severity: 'high', title: 'T', body: 'B', supplier_id: 's1' },
      ],
      [['assets', 'confirm', id], 'POST', `/admin/assets/${id}/confirm`, undefined],
      [
        ['items', 'set-status', id, '--status', 'completed', '--user-id', 'u1', '--note', 'done'],
        'POST',
        `/admin/action-plan-items/${id}/status`,
        { status: 'completed', user_id: 'u1', note: 'done' },
      ],
      [
        ['endpoints', 'update', id, '--events', 'all', '--enable'],
        'PATCH',
        `/admin/webhook-endpoints/${id}`,
        {
          // "all" is the contract's four; the opt-in types are named (P177).
          events: ContractEventTypes,
          enabled: true,
        },
      ],
      [
        ['workspaces', 'update', id, '--name', 'N', '--quota', '3'],
        'PATCH',
        `/admin/workspaces/${id}`,
        { name: 'N', assessment_quota: 3 },
      ],
      [
        [
          'keys',
          'create',
          id,
          '--name',
          'k',
          '--scopes',
          'a:read, b:read',
          '--created-by',
          'u',
          '--expires-at',
          '2030-01-01T00:00:00Z',
        ],
        'POST',
        `/admin/workspaces/${id}/api-keys`,
        { name: 'k', scopes: ['a:read', 'b:read'], created_by: 'u', expires_at: '2030-01-01T00:00:00Z' },
      ],
      // An argument cannot leave its path segment.
      [['workspaces', 'get', '../api-keys/x'], 'GET', '/admin/workspaces/..%2Fapi-keys%2Fx', undefined],
    ];
    for (const [args, method, url, body] of cases) {
      const before = server.seen.length;
      const run = await ok([...args, '--json'], {
        env: { ADMIN_URL: `${server.url}/`, ADMIN_TOKEN: 'stub-token' },
      });
      assert.deepEqual(run.json, { id: 'x', ok: true }, 'the raw answer with --json');
      assert.equal(server.seen.length, before + 1, args.join(' '));
      const request = server.seen[before] as Seen;
      assert.deepEqual(
        { method: request.method, url: request.url, body: request.body },
        { method, url, body },
        args.join(' '),
      );
      assert.equal(request.authorization, 'Bearer stub-token');
    }
  });

  test('seed drops each collection the server names as unknown, says so once and never sends it again', async (t) => {
    const accepted = new Set(['suppliers', 'assessments']);
    const server = await stub((seen, res) => {
      if (seen.method === 'GET') return send(res, 200, { id: 'w' });
      const unknown = Object.keys(seen.body).filter((name) => !accepted.has(name));
      if (unknown.length > 0)
        return send(res, 422, {
          error: {
            code: 'validation_failed',
            message: 'One or more fields are invalid.',
            details: {
              fields: Object.fromEntries(unknown.map((name) => [name, 'is not a known collection'])),
            },
            request_id: 'r',
          },
        });
      const created = Object.fromEntries(
        Object.entries(seen.body).map(([name, rows]) => [name, (rows as []).length]),
      );
      send(res, 200, { created });
    });
    t.after(() => server.close());
    const document = generateSeedDocument({ size: { suppliers: 30 }, seed: 1 });
    const run = await ok(['seed', randomUUID(), '--suppliers', '30', '--batch-size', '50', '--json'], {
      env: { ADMIN_URL: server.url },
    });
    assert.deepEqual(run.json.created, {
      suppliers: document.suppliers?.length,
      assessments: document.assessments?.length,
    });
    const refused = Object.keys(document).filter((name) => !accepted.has(name));
    assert.deepEqual([...run.json.skipped_collections].sort(), [...refused].sort());
    for (const name of refused) {
      assert.equal(run.stderr.split(`"${name}"`).length, 2, `${name} reported once`);
      const sent = server.seen.filter((s) => s.body && name in s.body).length;
      assert.equal(sent, 1, `${name} is sent in one request only (the refused one)`);
    }
  });

  test('seed stops at the first other error, with the message and how far it got', async (t) => {
    let imports = 0;
    const server = await stub((seen, res) => {
      if (seen.method === 'GET') return send(res, 200, { id: 'w' });
      if (++imports === 2)
        return send(res, 409, {
          error: { code: 'conflict', message: 'Duplicate.', details: { reason: 'dup' }, request_id: 'r' },
        });
      send(res, 200, { created: { suppliers: 1 } });
    });
    t.after(() => server.close());
    const run = await tprm(['seed', randomUUID(), '--suppliers', '30', '--batch-size', '50'], {
      env: { ADMIN_URL: server.url },
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /error: Duplicate\. \(conflict, HTTP 409\)\n {2}reason: "dup"\n/);
    assert.match(run.stderr, /seed stopped after 50 of \d+ records/);
    assert.equal(imports, 2, 'no request after the failure');

    // With --json the same error, its details and the notes, as one JSON object (P79).
    imports = 0;
    const json = await tprm(['seed', randomUUID(), '--suppliers', '30', '--batch-size', '50', '--json'], {
      env: { ADMIN_URL: server.url },
    });
    assert.equal(json.code, 1);
    const { error } = JSON.parse(json.stderr.slice(json.stderr.indexOf('{')));
    assert.deepEqual(
      { code: error.code, status: error.status, details: error.details, request_id: error.request_id },
      { code: 'conflict', status: 409, details: { reason: 'dup' }, request_id: 'r' },
    );
    assert.match(error.notes[0], /^seed stopped after 50 of \d+ records/);
  });
});

describe('migrate', () => {
  test('applies the migrations to DATA_DIR, then nothing; refuses while the directory is locked', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tprm-cli-migrate-'));
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN: undefined };
    const first = await ok(['migrate', '--json'], { env });
    assert.equal(first.json.database, 'pglite');
    assert.equal(first.json.target, join(dataDir, 'pgdata'));
    assert.deepEqual(
      first.json.applied,
      loadMigrations().map((m) => m.name),
    );
    const second = await ok(['migrate'], { env });
    assert.match(second.stdout, /^Nothing to apply: .* is up to date\.\n$/);

    // The lock the server holds while it runs (this test process plays the server).
    const release = lockDataDir(dataDir);
    try {
      const locked = await tprm(['migrate'], { env });
      assert.equal(locked.code, 1);
      assert.match(locked.stderr, new RegExp(`in use by process ${process.pid}`));
    } finally {
      release();
    }
  });

  test('with DATABASE_URL: applies to the PostgreSQL server, then nothing', {
    skip: !process.env.TEST_DATABASE_URL,
  }, async () => {
    const url = process.env.TEST_DATABASE_URL as string;
    const name = `tprm_t_${randomBytes(6).toString('hex')}`; // the test runner drops leftovers by this prefix
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database ${name}`);
    try {
      const target = new URL(url);
      target.pathname = `/${name}`;
      const env = { DATABASE_URL: target.href, DATA_DIR: join(dir(), 'unused') };
      const first = await ok(['migrate', '--json'], { env });
      assert.equal(first.json.database, 'postgres');
      assert.deepEqual(
        first.json.applied,
        loadMigrations().map((m) => m.name),
      );
      assert.deepEqual((await ok(['migrate', '--json'], { env })).json.applied, []);
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});

// The CLI points of issue 28 ("Integrator polish"), the real tprm command against the real management API: group
// help with examples, keys create without --created-by (P169), an endpoint's deliveries filtered and paged in a
// table that fits 100 columns (P167, P168), seed into a workspace that holds data (P170), and endpoints test
// --wait (P171). Apart from cli.test.ts, which is long enough already for the test runner's time per file.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Run, useCliHarness } from '../support/cli.js';
import { answerWith, Receiver } from '../support/receiver.js';

const { h, tprm, ok } = useCliHarness();

const newWorkspace = async (name = 'CLI workspace') =>
  (await ok(['workspaces', 'create', '--name', name, '--plan', 'enterprise', '--json'])).json;

/** `tprm endpoints create` of an alert.created endpoint at `url`, parsed from --json. */
const newEndpoint = async (workspaceId: string, url: string) =>
  (await ok(['endpoints', 'create', workspaceId, '--url', url, '--events', 'alert.created', '--json'])).json;

describe('group help (issue 28)', () => {
  test('every command group and command has examples in its --help', async () => {
    const { buildProgram } = await import('../../src/cli/program.js');
    const names = buildProgram().commands.map((command) => command.name());
    assert.ok(names.length >= 15, names.join());
    for (const name of names) {
      const run = await ok([name, '--help']);
      assert.match(run.stdout, /\nExamples:\n {2}\$ .*\btprm\b/, `tprm ${name} --help`);
    }
    const group = await ok(['workspaces', '--help']);
    assert.match(group.stdout, /\$ tprm workspaces create --name "Acme Corp"/);
  });
});

describe('keys create without --created-by (P169)', () => {
  const keyArgs = (workspaceId: string) => ['keys', 'create', workspaceId, '--name', 'ci', '--scopes', 'all'];

  test('the only user of the workspace is taken, and said on stderr', async () => {
    const ws = await newWorkspace();
    const user = (
      await ok(['users', 'create', ws.id, '--name', 'Solo', '--email', 'solo@cli.example', '--json'])
    ).json;
    const run = await ok([...keyArgs(ws.id), '--json']);
    assert.equal(run.json.created_by, user.id);
    assert.match(run.stderr, new RegExp(`note: created by Solo <solo@cli\\.example> \\(${user.id}\\)`));
  });

  test('no user: exit 1 saying how to add one; several: exit 1 naming each to pass', async () => {
    const ws = await newWorkspace();
    const none = await tprm(keyArgs(ws.id));
    assert.equal(none.code, 1);
    assert.match(none.stderr, /has no users, and a key is created by one: add one, then pass --created-by/);
    assert.match(none.stderr, new RegExp(`note: tprm users create ${ws.id} --name`));
    const ids: string[] = [];
    for (const name of ['One', 'Two'])
      ids.push(
        (await ok(['users', 'create', ws.id, '--name', name, '--email', `${name}@cli.example`, '--json']))
          .json.id,
      );
    const several = await tprm(keyArgs(ws.id));
    assert.equal(several.code, 1);
    assert.match(several.stderr, /has 2 users: pass --created-by <user-id>, one of:/);
    for (const id of ids) assert.match(several.stderr, new RegExp(`note: ${id} `));
    assert.equal((await ok(['keys', 'list', ws.id, '--json'])).json.data.length, 0, 'no key was made');
    const json = await tprm([...keyArgs(ws.id), '--json']);
    assert.equal(JSON.parse(json.stderr).error.code, 'cli_error');
  });
});

describe('endpoints deliveries: filters, paging and a 100-column table (P167, P168)', () => {
  /** An endpoint with 5 attempts: 3 alert.created (one failed with a long error), 2 test events. */
  async function endpointWithAttempts() {
    const ws = await newWorkspace();
    const id = (await newEndpoint(ws.id, 'https://hooks.example.com/d')).id as string;
    await ok(['endpoints', 'update', id, '--events', 'all']);
    for (let n = 0; n < 3; n++) {
      const alert = await h.admin('POST', `/admin/workspaces/${ws.id}/alerts`, {
        scope: 'org',
        severity: 'low',
        title: `t${n}`,
        body: 'b',
      });
      assert.equal(alert.status, 201);
    }
    for (let n = 0; n < 2; n++)
      await ok(['endpoints', 'test', id, '--event', 'action_plan_item.status_changed']);
    const all = (await ok(['endpoints', 'deliveries', id, '--json'])).json.data;
    assert.equal(all.length, 5);
    const failed = all.find((attempt: { event_type: string }) => attempt.event_type === 'alert.created');
    await h.db.query(
      `update webhook_deliveries set status = 'failed', response_status = 503, duration_ms = 1234, error = $2
        where id = $1`,
      [failed.id, `HTTP 503: ${'the receiver said it is down for maintenance '.repeat(4)}`],
    );
    return { ws, id, failed: failed.id as string };
  }

  test('--status, --event and --since narrow the list on the server', async () => {
    const { id, failed } = await endpointWithAttempts();
    const byStatus = (await ok(['endpoints', 'deliveries', id, '--status', 'failed', '--json'])).json;
    assert.deepEqual(
      byStatus.data.map((a: { id: string }) => a.id),
      [failed],
    );
    assert.equal(byStatus.next_cursor, null);
    const byEvent = (
      await ok(['endpoints', 'deliveries', id, '--event', 'action_plan_item.status_changed', '--json'])
    ).json.data;
    assert.equal(byEvent.length, 2);
    for (const attempt of byEvent) assert.equal(attempt.test, true);
    const both = await ok([
      'endpoints',
      'deliveries',
      id,
      '--status',
      'failed',
      '--event',
      'report.ready',
      '--json',
    ]);
    assert.deepEqual(both.json.data, []);
    assert.equal((await ok(['endpoints', 'deliveries', id, '--since', '1h', '--json'])).json.data.length, 5);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    assert.equal(
      (await ok(['endpoints', 'deliveries', id, '--since', future, '--json'])).json.data.length,
      0,
    );
    const bad = await tprm(['endpoints', 'deliveries', id, '--since', 'yesterday']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--since.*ISO 8601 instant .* or a duration/);
    const status = await tprm(['endpoints', 'deliveries', id, '--status', 'lost']);
    assert.equal(status.code, 2);
    // The operator API itself refuses a bad filter with the one error shape.
    const api = await h.admin('GET', `/admin/webhook-endpoints/${id}/deliveries?status=lost`);
    assert.equal(api.status, 400);
    assert.equal(api.json.error.code, 'invalid_request');
    assert.equal(api.json.error.details.parameter, 'status');
  });

  test('--limit pages with a cursor bound to the filters; --all follows every page', async () => {
    const { id } = await endpointWithAttempts();
    const all = (await ok(['endpoints', 'deliveries', id, '--json'])).json.data.map(
      (a: { id: string }) => a.id,
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Run = await ok([
        'endpoints',
        'deliveries',
        id,
        '--limit',
        '2',
        ...(cursor ? ['--cursor', cursor] : []),
        '--json',
      ]);
      seen.push(...page.json.data.map((a: { id: string }) => a.id));
      cursor = page.json.next_cursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, all, 'every attempt once, newest first');
    const followed = (await ok(['endpoints', 'deliveries', id, '--all', '--limit', '2', '--json'])).json;
    assert.deepEqual(
      followed.data.map((a: { id: string }) => a.id),
      all,
    );
    // For people: the last line prints the command of the next page, which works as printed.
    const first = await ok(['endpoints', 'deliveries', id, '--limit', '2', '--event', 'alert.created']);
    const next = /2 deliveries shown; more match\. Next page:\n {2}tprm (.+)\n$/.exec(first.stdout);
    assert.ok(next, first.stdout);
    const rest = await ok((next[1] as string).split(' '));
    assert.match(rest.stdout, /\n\n1 delivery\.\n$/);
    // A cursor is good for its filters only: with others, the API's 400.
    const page = (await ok(['endpoints', 'deliveries', id, '--limit', '2', '--json'])).json;
    const other = await tprm([
      'endpoints',
      'deliveries',
      id,
      '--status',
      'pending',
      '--cursor',
      page.next_cursor,
    ]);
    assert.equal(other.code, 1);
    assert.match(other.stderr, /\(invalid_request, HTTP 400\)\n {2}parameter: "cursor"/);
  });

  test('the default table fits 100 columns, cutting long cells; --wide shows ids and whole values', async () => {
    const { id, failed } = await endpointWithAttempts();
    const run = await ok(['endpoints', 'deliveries', id]);
    const lines = run.stdout.trimEnd().split('\n');
    for (const line of lines) assert.ok(line.length <= 100, `${line.length} columns: ${line}`);
    assert.match(lines[0] as string, /^ATTEMPTED \(UTC\) +EVENT +# +STATUS +HTTP +MS +ERROR$/);
    assert.match(
      run.stdout,
      /\n\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +alert\.created +1 +failed +503 +1234 +HTTP 503: the rec\S* .*…\n/,
    );
    assert.match(run.stdout, /\n\S+ \S+ +action_plan_item\.\S*… +test +pending /);
    assert.equal(lines.at(-1), '5 deliveries.');
    const wide = await ok(['endpoints', 'deliveries', id, '--wide']);
    assert.match(wide.stdout, new RegExp(`^${failed} .*failed +503 +1234 +HTTP 503: the receiver`, 'm'));
    assert.match(wide.stdout, /action_plan_item\.status_changed +test +pending /);
  });
});

describe('seed into a workspace that holds data (P170)', () => {
  test('seeding twice: refused whole, saying which records clash and why; nothing is imported', async () => {
    const ws = await h.workspace();
    const args = ['seed', ws.id, '--suppliers', '4', '--seed', '11'];
    await ok(args);
    const before = (await h.api('GET', '/suppliers?limit=100', { key: ws.key })).json.data.length;
    const again = await tprm(args);
    assert.equal(again.code, 1);
    assert.match(
      again.stderr,
      /^error: Workspace \S+ already holds records this demo data set would repeat \(4 ids of suppliers, .*\): the seed fills an empty workspace/,
    );
    assert.match(again.stderr, /\nnote: nothing was imported: the only batch was refused whole\.\n/);
    assert.match(
      again.stderr,
      /\nnote: --seed 11 was seeded into this workspace before: the same --seed makes the same record ids\.\n/,
    );
    assert.match(again.stderr, /\nnote: seed an empty workspace instead: tprm workspaces create/);
    assert.doesNotMatch(again.stderr, /is already used by/, 'the field list is summed up, not dumped');
    assert.equal((await h.api('GET', '/suppliers?limit=100', { key: ws.key })).json.data.length, before);

    // Another --seed still clashes on the fixed lists (risk codes R-0001…), and says so.
    const other = await tprm([
      'seed',
      ws.id,
      '--suppliers',
      '4',
      '--seed',
      '12',
      '--batch-size',
      '20',
      '--json',
    ]);
    assert.equal(other.code, 1);
    const { error } = JSON.parse(other.stderr);
    assert.equal(error.code, 'seed_conflict');
    assert.match(error.message, /\bcodes? of risks\b/);
    assert.doesNotMatch(error.message, /\bids? of /);
    assert.match(error.notes.join('\n'), /risk codes \(R-0001…\) come from fixed lists, whatever the --seed/);
    assert.match(error.notes[0], /^nothing was imported: batch 1 of \d+ was refused whole\.$/);
  });

  test('a workspace whose records do not clash is seeded: the seed adds to what is there', async () => {
    const ws = await h.workspace();
    await ok(['import', ws.id, '-'], {
      input: JSON.stringify({ suppliers: [{ name: 'Own supplier', domain: 'own-supplier.example' }] }),
    });
    const run = await ok(['seed', ws.id, '--suppliers', '3', '--json']);
    assert.equal(run.json.created.suppliers, 3);
    assert.equal((await h.api('GET', '/suppliers?limit=100', { key: ws.key })).json.data.length, 4);
    const human = await ok(['seed', (await h.workspace()).id, '--suppliers', '1', '--batch-size', '5000']);
    assert.match(human.stdout, /^Seeded workspace \S+: \d+ records in 1 batch, /);
  });
});

describe('endpoints test --wait (a webhook worker delivers)', () => {
  const cli = useCliHarness({ env: { WEBHOOK_ALLOW_INSECURE_URLS: 'true' } });
  let receiver: Receiver;
  before(async () => {
    receiver = await Receiver.start();
    await cli.h.worker();
  });
  after(() => receiver.close());

  const endpointAt = async (path: string) => {
    const ws = (await cli.ok(['workspaces', 'create', '--name', 'wait', '--plan', 'enterprise', '--json']))
      .json;
    return (
      await cli.ok([
        'endpoints',
        'create',
        ws.id,
        '--url',
        receiver.url(path),
        '--events',
        'alert.created',
        '--json',
      ])
    ).json.id as string;
  };

  test('delivered: the outcome with HTTP status and duration, exit 0', async () => {
    const id = await endpointAt('/ok');
    const run = await cli.ok(['endpoints', 'test', id, '--event', 'alert.created', '--wait']);
    assert.match(run.stdout, /^status +delivered$/m);
    assert.match(run.stdout, /\n\nDelivered: delivered, HTTP 200, \d+ ms\.\n$/);
    const json = await cli.ok(['endpoints', 'test', id, '--event', 'report.ready', '--wait', '--json']);
    assert.equal(json.json.status, 'delivered');
    assert.equal(json.json.response_status, 200);
    assert.equal(typeof json.json.duration_ms, 'number');
  });

  test('refused by the receiver: the record, and the outcome with the error on stderr, exit 1', async () => {
    receiver.answerAt('/down', answerWith(500, 'down'));
    const id = await endpointAt('/down');
    const run = await cli.tprm(['endpoints', 'test', id, '--event', 'alert.created', '--wait']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /^response_status +500$/m);
    assert.match(run.stderr, /^error: Not delivered: exhausted, HTTP 500, \d+ ms, error: HTTP 500\b.*\.\n$/);
  });
});

test('endpoints test --wait without a worker: no outcome within --timeout, exit 1 saying so', async () => {
  const ws = await newWorkspace();
  const id = (await newEndpoint(ws.id, 'https://hooks.example.com/w')).id as string;
  const run = await tprm(['endpoints', 'test', id, '--event', 'alert.created', '--wait', '--timeout', '1']);
  assert.equal(run.code, 1);
  assert.match(run.stdout, /^status +pending$/m);
  assert.match(
    run.stderr,
    /error: No outcome yet \(pending\): is a webhook worker running \(ROLE=worker or all\)\?/,
  );
});

// Faults (hardening): the real service as child processes under load while its PostgreSQL restarts, while it
// is SIGKILLed in the middle of writes (on PostgreSQL and on the embedded store), while Redis stops, and while
// the embedded store's disk is read-only or full. Every test checks the data afterwards: checksums of the
// tables, each write all or nothing, each Idempotency-Key one row, each event delivered.
//
// The PostgreSQL and Redis faults run with the PostgreSQL run of the suite (TEST_DATABASE_URL), on a private
// cluster and a private redis-server (the machine's shared ones are never stopped); the embedded-store faults
// run with the embedded run. FAULTS_LONG=1 runs longer, repeated variants for the figures of the closing note.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, type TestContext, test } from 'node:test';
import pg from 'pg';
import { createWorkspace } from '../../src/management/actions.js';
import { EMBEDDED_MIN_FREE_BYTES, openEmbedded, type Queryable } from '../../src/storage/db.js';
import { migrate } from '../../src/storage/migrate.js';
import { operatorStore } from '../../src/storage/operator.js';
import { ENGINE, Harness } from '../support/harness.js';
import {
  type PrivatePostgres,
  privatePostgresUnavailable,
  startPrivatePostgres,
} from '../support/postgres.js';
import { eventually, type Received, Receiver, sleep } from '../support/receiver.js';
import { type PrivateRedis, privateRedisUnavailable, startPrivateRedis } from '../support/redis.js';
import { type ServiceProcess, startService } from '../support/service.js';

const LONG = process.env.FAULTS_LONG === '1';
/** Requests that get no answer within this are counted as hangs. */
const REQUEST_TIMEOUT_MS = 15_000;
const ADMIN_TOKEN = `faults-admin-${randomUUID()}`;

// ---------------------------------------------------------------------------------------------------------
// Talking to a service process

interface Reply {
  /** 0: no response (connection refused or cut, or no answer within REQUEST_TIMEOUT_MS). */
  status: number;
  text: string;
  headers: Headers;
  failure?: string;
}

async function call(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    return { status: res.status, text: await res.text(), headers: res.headers };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { status: 0, text: '', headers: new Headers(), failure: cause ?? (error as Error).name };
  }
}

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies of the admin API
async function admin(service: ServiceProcess, method: string, path: string, body?: unknown): Promise<any> {
  const reply = await call(service.adminUrl, method, `/admin${path}`, { token: ADMIN_TOKEN, body });
  assert.ok(reply.status >= 200 && reply.status < 300, `${method} ${path}: ${reply.status} ${reply.text}`);
  return reply.text ? JSON.parse(reply.text) : undefined;
}

interface Tenant {
  id: string;
  key: string;
}

async function tenant(service: ServiceProcess): Promise<Tenant> {
  const ws = await admin(service, 'POST', '/workspaces', { name: 'Faults', plan: 'enterprise' });
  const user = await admin(service, 'POST', `/workspaces/${ws.id}/users`, {
    name: 'Ops',
    email: 'ops@faults.example',
  });
  const key = await admin(service, 'POST', `/workspaces/${ws.id}/api-keys`, {
    name: 'faults',
    scopes: ['suppliers:read', 'suppliers:write', 'assets:read', 'assets:write'],
    created_by: user.id,
  });
  return { id: ws.id, key: key.secret };
}

function assertStatus(reply: Reply, status: number): void {
  assert.equal(reply.status, status, reply.failure ?? reply.text);
}

/** The one error shape of a 500 (risk-data-api.md "Errors"), with the response's request id. */
function assertInternalError(reply: Reply): void {
  assert.equal(reply.status, 500, reply.text);
  assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
  const body = JSON.parse(reply.text);
  assert.deepEqual(Object.keys(body), ['error']);
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'request_id']);
  assert.equal(body.error.code, 'internal_error');
  assert.equal(body.error.request_id, reply.headers.get('x-request-id'));
}

/** Counts of outcomes, for the figures. */
class Tally {
  readonly counts = new Map<string, number>();
  add(reply: Reply): void {
    const label = reply.status === 0 ? `no answer (${reply.failure})` : String(reply.status);
    this.counts.set(label, (this.counts.get(label) ?? 0) + 1);
  }
  get total(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }
  count(label: string): number {
    return this.counts.get(label) ?? 0;
  }
  toString(): string {
    return [...this.counts].map(([label, n]) => `${label}: ${n}`).join(', ');
  }
}

// ---------------------------------------------------------------------------------------------------------
// The writes under test and what must hold of them afterwards

/** One POST /suppliers with its Idempotency-Key and body; `reply` is the first answer. */
interface Post {
  tenant: Tenant;
  key: string;
  body: { name: string };
  reply?: Reply;
}

/** One PUT /assets batch; its items carry `region = batch` so the rows of each batch can be counted. */
interface Batch {
  tenant: Tenant;
  batch: string;
  size: number;
  reply?: Reply;
}

class Writes {
  readonly posts: Post[] = [];
  readonly batches: Batch[] = [];
  readonly reads: Reply[] = [];
  readonly tally = new Tally();

  constructor(
    private readonly service: () => ServiceProcess,
    private readonly batchSize: number,
  ) {}

  async post(tenant: Tenant): Promise<Reply> {
    const key = randomUUID();
    const post: Post = { tenant, key, body: { name: `supplier ${key}` } };
    this.posts.push(post);
    post.reply = await this.sendPost(post);
    this.tally.add(post.reply);
    return post.reply;
  }

  sendPost(post: Post): Promise<Reply> {
    return call(`${this.service().publicUrl}/v1`, 'POST', '/suppliers', {
      token: post.tenant.key,
      body: post.body,
      headers: { 'idempotency-key': post.key },
    });
  }

  async put(tenant: Tenant): Promise<Reply> {
    const batch: Batch = { tenant, batch: `batch-${randomUUID()}`, size: this.batchSize };
    this.batches.push(batch);
    const assets = Array.from({ length: batch.size }, (_, i) => ({
      external_id: `${batch.batch}-${i}`,
      name: `asset ${i}`,
      asset_type: 'infrastructure',
      region: batch.batch,
    }));
    batch.reply = await call(`${this.service().publicUrl}/v1`, 'PUT', '/assets', {
      token: tenant.key,
      body: { source: 'manual', assets },
    });
    this.tally.add(batch.reply);
    return batch.reply;
  }

  async get(tenant: Tenant): Promise<Reply> {
    const reply = await call(`${this.service().publicUrl}/v1`, 'GET', '/suppliers?limit=5', {
      token: tenant.key,
    });
    this.reads.push(reply);
    this.tally.add(reply);
    return reply;
  }

  get all(): Reply[] {
    return [
      ...this.posts.flatMap((p) => (p.reply ? [p.reply] : [])),
      ...this.batches.flatMap((b) => (b.reply ? [b.reply] : [])),
      ...this.reads,
    ];
  }

  /**
   * Each write all or nothing: a batch has all its assets or none (all of them when it got a 200), and one
   * audit entry per complete batch; a supplier exists once at most (once when its POST got a 201, with the
   * answered id), always with its audit entry and its stored idempotent response. Returns the rows checked.
   */
  async verify(q: Pick<Queryable, 'query'>): Promise<number> {
    let rows = 0;
    const tenants = [...new Set([...this.posts, ...this.batches].map((w) => w.tenant.id))];
    const perBatch = new Map(
      (
        await q.query<{ region: string; n: number }>(
          'select region, count(*)::int as n from assets where workspace_id = any($1) group by region',
          [tenants],
        )
      ).map((row) => [row.region, row.n]),
    );
    const complete = new Map<string, number>();
    for (const batch of this.batches) {
      const n = perBatch.get(batch.batch) ?? 0;
      rows += n;
      assert.ok(n === 0 || n === batch.size, `${batch.batch}: ${n} of ${batch.size} assets`);
      if (batch.reply?.status === 200) assert.equal(n, batch.size, `${batch.batch} answered 200`);
      if (n > 0) complete.set(batch.tenant.id, (complete.get(batch.tenant.id) ?? 0) + 1);
    }
    const audits = await q.query<{ workspace_id: string; n: number }>(
      `select workspace_id, count(*)::int as n from audit_logs
        where workspace_id = any($1) and action = 'assets.upserted' group by workspace_id`,
      [tenants],
    );
    for (const id of tenants) {
      const n = audits.find((row) => row.workspace_id === id)?.n ?? 0;
      assert.equal(n, complete.get(id) ?? 0, 'one audit entry per complete batch');
    }

    const suppliers = await q.query<{ id: string; name: string; audits: number; stored: number }>(
      `select s.id, s.name,
              (select count(*)::int from audit_logs a where a.workspace_id = s.workspace_id
                  and a.action = 'supplier.created' and a.target_id = s.id) as audits,
              (select count(*)::int from idempotency_keys k where k.workspace_id = s.workspace_id
                  and k.endpoint = 'createSupplier' and k.response_status = 201
                  and (k.response_body::json ->> 'id')::uuid = s.id) as stored
         from suppliers s where s.workspace_id = any($1)`,
      [tenants],
    );
    rows += suppliers.length;
    const byName = new Map<string, (typeof suppliers)[number][]>();
    for (const row of suppliers) byName.set(row.name, [...(byName.get(row.name) ?? []), row]);
    for (const post of this.posts) {
      const found = byName.get(post.body.name) ?? [];
      assert.ok(found.length <= 1, `${found.length} suppliers for one Idempotency-Key`);
      if (post.reply?.status === 201) {
        assert.equal(found.length, 1, 'a 201 is committed');
        assert.equal(found[0]?.id, JSON.parse(post.reply.text).id);
      }
    }
    for (const row of suppliers) {
      assert.equal(row.audits, 1, `supplier ${row.id}: ${row.audits} audit entries`);
      assert.equal(row.stored, 1, `supplier ${row.id}: ${row.stored} stored idempotent responses`);
    }
    const [orphans] = await q.query<{ audits: number; keys: number }>(
      `select (select count(*)::int from audit_logs a where a.workspace_id = any($1) and a.action = 'supplier.created'
                 and not exists (select 1 from suppliers s where s.workspace_id = a.workspace_id and s.id = a.target_id)) as audits,
              (select count(*)::int from idempotency_keys k where k.workspace_id = any($1) and k.endpoint = 'createSupplier'
                 and not exists (select 1 from suppliers s where s.workspace_id = k.workspace_id
                                    and s.id = (k.response_body::json ->> 'id')::uuid)) as keys`,
      [tenants],
    );
    assert.deepEqual(
      orphans,
      { audits: 0, keys: 0 },
      'no audit entry or stored response without its supplier',
    );
    return rows;
  }

  /**
   * Every POST retried with its Idempotency-Key and body: each answers 201, the first answer replayed when
   * there was one, and the write done once when the first never committed. Returns [replayed, written].
   */
  async retryPosts(): Promise<[number, number]> {
    let replayed = 0;
    let written = 0;
    for (const post of this.posts) {
      // Paced: a workspace's retries stay under its 60 requests a second.
      const paced = sleep(20);
      const again = await this.sendPost(post);
      await paced;
      assert.equal(again.status, 201, again.text);
      if (again.headers.get('idempotent-replayed') === 'true') replayed += 1;
      else written += 1;
      if (post.reply?.status === 201) {
        assert.equal(again.headers.get('idempotent-replayed'), 'true');
        assert.equal(again.text, post.reply.text);
      }
      post.reply = again;
    }
    return [replayed, written];
  }
}

/** Loops that each call `step` at most every `intervalMs` until stopped (at the latest when `t` ends). */
function loops(t: TestContext, count: number, intervalMs: number, step: (loop: number) => Promise<unknown>) {
  let running = true;
  const done = Promise.all(
    Array.from({ length: count }, async (_, loop) => {
      while (running) {
        const started = Date.now();
        await step(loop);
        await sleep(Math.max(0, intervalMs - (Date.now() - started)));
      }
    }),
  );
  const stop = async () => {
    running = false;
    await done;
  };
  t.after(stop);
  return { stop };
}

/** md5 of every row of each table, for the given workspaces and rows older than `before`. */
async function checksums(
  q: Pick<Queryable, 'query'>,
  workspaces: string[],
  before: string,
): Promise<Record<string, string>> {
  const tables = {
    suppliers: 'created_at',
    assets: 'created_at',
    audit_logs: 'occurred_at',
    idempotency_keys: 'created_at',
    events: 'occurred_at',
  };
  const sums: Record<string, string> = {};
  for (const [table, column] of Object.entries(tables)) {
    const [row] = await q.query<{ sum: string; n: number }>(
      `select md5(coalesce(string_agg(t::text, ',' order by t::text), '')) as sum, count(*)::int as n
         from ${table} t where workspace_id = any($1) and ${column} < $2::timestamptz`,
      [workspaces, before],
    );
    sums[table] = `${row?.n}:${row?.sum}`;
  }
  return sums;
}

function pgQueryable(url: string): Pick<Queryable, 'query'> & { end(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  // Its idle connections are cut by the restarts under test.
  pool.on('error', () => undefined);
  return {
    query: async <R>(sql: string, params: readonly unknown[] = []) =>
      (await pool.query(sql, params as unknown[])).rows as R[],
    end: () => pool.end(),
  };
}

/** The log lines of a process at warn level or above, as "level message: error message". */
function warnings(service: ServiceProcess): string[] {
  return service.output.flatMap((line) => {
    try {
      const record = JSON.parse(line);
      return record.level >= 40
        ? [`${record.level} ${record.msg}: ${record.err?.message ?? record.err ?? ''}`]
        : [];
    } catch {
      return [line];
    }
  });
}

const alive = (service: ServiceProcess) =>
  service.child.exitCode === null && service.child.signalCode === null;

// ---------------------------------------------------------------------------------------------------------
// PostgreSQL restarted under load

const onPostgres =
  ENGINE !== 'postgres'
    ? 'belongs to the PostgreSQL run of the suite (TEST_DATABASE_URL)'
    : privatePostgresUnavailable;

describe('PostgreSQL restarted in the middle of load', { skip: onPostgres }, () => {
  let cluster: PrivatePostgres;
  let service: ServiceProcess;
  let receiver: Receiver;

  before(async () => {
    cluster = await startPrivatePostgres();
    await cluster.createDatabase('faults');
    receiver = await Receiver.start();
    service = await startService({
      DATABASE_URL: cluster.url('faults'),
      ROLE: 'all',
      ADMIN_TOKEN,
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
      // The lease of an attempt whose outcome could not be recorded expires 5 s after this.
      WEBHOOK_TIMEOUT: '2s',
    });
  });
  after(async () => {
    if (service && alive(service)) await service.kill('SIGKILL');
    await receiver?.close();
    cluster?.close();
  });

  test('in-flight requests answer 500 in the error shape, /readyz follows, the service reconnects, nothing is half-written, no event is lost', async (t) => {
    const writes = new Writes(() => service, 50);
    const db = pgQueryable(cluster.url('faults'));
    const cycles = LONG ? 5 : 1;
    let readyzDuringOutage = 0;
    let checked = 0;
    const events = new Set<string>();
    const path = `/${randomUUID()}`;
    const at = (): Received[] => receiver.received.filter((request) => request.path === path);
    try {
      for (let cycle = 0; cycle < cycles; cycle++) {
        // Fresh workspaces each cycle keep every request under the rate limits (60/s, 600/min).
        const tenants = await Promise.all(Array.from({ length: 6 }, () => tenant(service)));
        for (const ws of tenants) {
          await admin(service, 'POST', `/workspaces/${ws.id}/webhook-endpoints`, {
            url: receiver.url(path),
            events: ['alert.created'],
          });
        }
        // Three loops per workspace, one request each at most every 60 ms (50 a second, under the limit of
        // 60): the pool's connections are busy with transactions when the server goes away.
        const load = () =>
          loops(t, tenants.length * 3, 60, async (i) => {
            const ws = tenants[i % tenants.length] as Tenant;
            const pick = Math.random();
            if (pick < 0.6) await writes.post(ws);
            else if (pick < 0.85) await writes.get(ws);
            else await writes.put(ws);
          });
        let running = load();
        await sleep(LONG ? 3000 : 800);
        await running.stop();
        const now = ((await db.query<{ now: string }>('select now()::text as now'))[0] as { now: string })
          .now;
        const ids = tenants.map((ws) => ws.id);
        const sumsBefore = await checksums(db, ids, now);

        // Events committed before the restart, whose attempts are in flight when it happens: the receiver
        // holds them until the database is down, so their outcome cannot be recorded then.
        const held: (() => void)[] = [];
        receiver.answer = (request, res) => {
          if (request.path !== path) return void res.end('ok');
          held.push(() => res.end('ok'));
        };
        const received = at().length;
        for (const ws of tenants) {
          const alert = await admin(service, 'POST', `/workspaces/${ws.id}/alerts`, {
            scope: 'org',
            severity: 'high',
            title: `before restart ${cycle}`,
            body: 'b',
          });
          assert.ok(alert.id);
        }
        // The events the endpoints subscribed to: the writes' opt-in events (supplier.created…) go to none (P177).
        for (const row of await db.query<{ id: string }>(
          `select id from events where workspace_id = any($1) and type = 'alert.created'`,
          [ids],
        ))
          events.add(row.id);
        await eventually(async () => at().length >= received + tenants.length, 10_000);

        running = load();
        await sleep(300);
        cluster.stop();
        for (const release of held.splice(0)) release();
        receiver.answer = (_request, res) => {
          res.end('ok');
        };
        // The outage lasts long enough for the service to notice it on every path.
        const outageEnds = Date.now() + 1500;
        while (Date.now() < outageEnds) {
          const readyz = await call(service.adminUrl, 'GET', '/readyz');
          assert.equal(readyz.status, 503, readyz.text || service.output.slice(-80).join('\n'));
          assert.deepEqual(JSON.parse(readyz.text), { status: 'database_unreachable' });
          readyzDuringOutage += 1;
          await sleep(100);
        }
        cluster.start();
        await eventually(async () => (await call(service.adminUrl, 'GET', '/readyz')).status === 200, 10_000);
        await sleep(LONG ? 3000 : 800);
        await running.stop();
        assert.ok(alive(service), 'the process survived the restart');

        const sumsAfter = await checksums(db, ids, now);
        assert.deepEqual(sumsAfter, sumsBefore, 'rows committed before the restart are unchanged');
      }

      // What was answered during the outage: a 500 in the error shape, nothing else; no request hung.
      const failed = writes.all.filter((reply) => reply.status >= 500 || reply.status === 0);
      for (const reply of failed) assertInternalError(reply);
      assert.ok(failed.length > 0, 'some requests met the outage');
      assert.equal(writes.tally.count('429'), 0);
      // The pool reconnected: the last requests of each tenant succeeded.
      const last = writes.posts.at(-1)?.reply;
      assert.equal(last?.status, 201, last?.text);
      assert.ok(writes.all.some((r) => r.status === 201));

      checked = await writes.verify(db);
      const [replayed, written] = await writes.retryPosts();
      checked += await writes.verify(db);

      // The dispatcher recovered too: every event committed before a restart reached the receiver, and
      // its delivery is recorded; it logged the incident once per restart, not once per poll.
      await eventually(async () => {
        const rows = await db.query(
          `select 1 from webhook_deliveries where event_id = any($1) and status = 'delivered'`,
          [[...events]],
        );
        return rows.length === events.size;
      }, 30_000);
      const seen = new Set(at().map((request) => request.json.event_id as string));
      const lost = [...events].filter((id) => !seen.has(id));
      assert.deepEqual(lost, []);
      const claimWarnings = warnings(service).filter((line) => line.includes('cannot claim attempts'));
      assert.ok(claimWarnings.length >= 1 && claimWarnings.length <= cycles, claimWarnings.join('\n'));
      // The LISTEN session is back (a restart outlasting its first reconnection try must not end it).
      const [listening] = await db.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike 'listen %'`,
      );
      assert.equal(listening?.n, 1);

      t.diagnostic(
        `${cycles} restart(s): ${writes.tally.total} requests (${writes.tally}); ${failed.length} failed, all 500 internal_error in the error shape; /readyz 503 all ${readyzDuringOutage} times asked during the outage; ${checked} rows checked, 0 half-written; ${writes.posts.length} POSTs retried: ${replayed} replayed, ${written} written once; ${events.size} events, 0 lost (${at().length} requests received)`,
      );
    } finally {
      await db.end();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// SIGKILL in the middle of writes

/** Drives PUT /assets batches and idempotent POST /suppliers, SIGKILLs the process mid-stream. */
async function killMidStream(
  t: TestContext,
  writes: Writes,
  service: ServiceProcess,
  tenants: Tenant[],
): Promise<void> {
  const load = loops(t, tenants.length * 2, 40, async (i) => {
    const ws = tenants[Math.floor(i / 2)] as Tenant;
    if (i % 2 === 0) await writes.put(ws);
    else await writes.post(ws);
  });
  // Kill once writes are flowing: some batches of this round done, more in flight.
  const done = () => writes.batches.filter((b) => b.reply?.status === 200).length;
  const before = done();
  await eventually(async () => done() >= before + 2, 20_000);
  await sleep(Math.random() * 200);
  assert.equal(await service.kill('SIGKILL'), null);
  await load.stop();
  const cut = writes.all.filter((reply) => reply.status === 0).length;
  assert.ok(cut > 0, 'the kill cut requests in flight');
  t.diagnostic(`at the kill: ${writes.tally}`);
}

const KILL_CYCLES = LONG ? 5 : 1;
const BATCH = 500;

describe('the API process SIGKILLed during writes, on PostgreSQL', {
  skip: ENGINE !== 'postgres' && 'belongs to the PostgreSQL run of the suite (TEST_DATABASE_URL)',
}, () => {
  let h: Harness;
  let service: ServiceProcess;
  before(async () => {
    h = await Harness.start();
  });
  after(async () => {
    if (service && alive(service)) await service.kill('SIGKILL');
    await h?.close();
  });

  test('every batch all or nothing; every Idempotency-Key retried after the crash makes one row', async (t) => {
    const env = { DATABASE_URL: h.databaseUrl as string, ROLE: 'api', ADMIN_TOKEN };
    service = await startService(env);
    const writes = new Writes(() => service, BATCH);
    let checked = 0;
    for (let cycle = 0; cycle < KILL_CYCLES; cycle++) {
      const tenants = await Promise.all(Array.from({ length: 3 }, () => tenant(service)));
      await killMidStream(t, writes, service, tenants);
      service = await startService(env);
      checked += await writes.verify(h.db);
    }
    const [replayed, written] = await writes.retryPosts();
    checked += await writes.verify(h.db);
    t.diagnostic(
      `${KILL_CYCLES} kill(s): ${writes.tally.total} requests (${writes.tally}); ${writes.batches.length} batches of ${BATCH}, ${checked} rows checked, 0 partial; ${writes.posts.length} POSTs retried: ${replayed} replayed, ${written} written once, 0 duplicates`,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// The embedded store: a crash, a read-only disk, a full disk

const mountUnavailable = (() => {
  if (ENGINE !== 'pglite') return 'belongs to the embedded-store run of the suite';
  const probe = mkdtempSync(join(tmpdir(), 'tprm-mount-probe-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]).status === 0;
  if (mounted) spawnSync('umount', [probe]);
  rmSync(probe, { recursive: true, force: true });
  return mounted ? undefined : 'mounting a tmpfs is not permitted here (needs root)';
})();

describe('the embedded store', {
  skip: ENGINE !== 'pglite' && 'belongs to the embedded-store run of the suite',
}, () => {
  // One migrated store, made once (PGlite's initdb takes seconds) and copied for each fault. Its one
  // workspace keeps the service from seeding the demo workspace at its first start.
  let template: string;
  const scratch: string[] = [];
  const mounts: string[] = [];
  let service: ServiceProcess | undefined;

  before(async () => {
    template = join(mkdtempSync(join(tmpdir(), 'tprm-faults-')), 'data');
    scratch.push(template);
    mkdirSync(template);
    const db = await openEmbedded(join(template, 'pgdata'));
    await migrate(db);
    await createWorkspace(operatorStore(db, null), { name: 'Seed', plan: 'enterprise' });
    await db.close();
  });
  after(async () => {
    if (service && alive(service)) await service.kill('SIGKILL');
    for (const mount of mounts) spawnSync('umount', ['-l', mount]);
    for (const dir of [...mounts, ...scratch]) rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of the template store in `parent` (a fresh directory unless given). */
  const copyStore = (parent = mkdtempSync(join(tmpdir(), 'tprm-faults-'))) => {
    scratch.push(parent);
    const dataDir = join(parent, 'data');
    cpSync(template, dataDir, { recursive: true });
    return dataDir;
  };
  /** Opens a stopped service's store in this process, runs `work`, closes it. */
  const inStore = async <T>(dataDir: string, work: (q: Queryable) => Promise<T>): Promise<T> => {
    const db = await openEmbedded(join(dataDir, 'pgdata'));
    try {
      return await work(db);
    } finally {
      await db.close();
    }
  };
  const tmpfs = (sizeBytes: number) => {
    const dir = mkdtempSync(join(tmpdir(), 'tprm-tmpfs-'));
    // mount(8) has been seen answering "mount point is busy" for a fresh directory while other mounts come
    // and go on the machine: try again briefly before giving up.
    for (let attempt = 1; ; attempt++) {
      const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir], {
        encoding: 'utf8',
      });
      if (mounted.status === 0) break;
      if (attempt === 20) throw new Error(`mount tmpfs on ${dir}: ${mounted.stderr}`);
      spawnSync('sleep', ['0.5']);
    }
    mounts.push(dir);
    return dir;
  };
  const free = (dir: string) => {
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize;
  };
  const storeBytes = () => Number(execFileSync('du', ['-sb', template], { encoding: 'utf8' }).split('\t')[0]);

  test('SIGKILL during writes: the next process opens the store (stale lock), every batch is all or nothing, every Idempotency-Key makes one row', async (t) => {
    const dataDir = copyStore();
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN };
    service = await startService(env, 60_000);
    const writes = new Writes(() => service as ServiceProcess, BATCH);
    let checked = 0;
    for (let cycle = 0; cycle < KILL_CYCLES; cycle++) {
      const tenants = await Promise.all(Array.from({ length: 2 }, () => tenant(service as ServiceProcess)));
      await killMidStream(t, writes, service, tenants);
      assert.ok(existsSync(join(dataDir, 'tprm.lock')), 'the killed process left its lock');
      checked += await inStore(dataDir, (q) => writes.verify(q));
      service = await startService(env, 60_000);
    }
    const [replayed, written] = await writes.retryPosts();
    assert.equal(await service.kill('SIGTERM'), 0);
    checked += await inStore(dataDir, (q) => writes.verify(q));
    t.diagnostic(
      `${KILL_CYCLES} kill(s): ${writes.tally.total} requests (${writes.tally}); ${writes.batches.length} batches of ${BATCH}, ${checked} rows checked, 0 partial; ${writes.posts.length} POSTs retried: ${replayed} replayed, ${written} written once, 0 duplicates`,
    );
  });

  // One store on a small tmpfs: its disk fills up, the process crashes, the disk turns read-only, then is
  // too full to start on. The data committed before each step must survive the step.
  describe('on a disk that fills up and turns read-only', { skip: mountUnavailable }, () => {
    let mount: string;
    let dataDir: string;
    let writes: Writes;
    let ws: Tenant;
    let sums: Record<string, string>;
    /** Starts the service where it must refuse to: its whole output and exit code. */
    const refusedStart = (dir: string) => {
      const started = spawnSync(process.execPath, [join(import.meta.dirname, '../../src/main.js')], {
        env: { PATH: process.env.PATH, DATA_DIR: dir, ADMIN_TOKEN, PORT: '0', ADMIN_PORT: '0' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      return { status: started.status, lines: (started.stdout + started.stderr).trim().split('\n') };
    };

    test('full disk: errors in the error shape (no hang, no crash), /readyz says so, writes resume once space is freed', async (t) => {
      mount = tmpfs(storeBytes() + EMBEDDED_MIN_FREE_BYTES + 48 * 1024 * 1024);
      dataDir = copyStore(mount);
      service = await startService({ DATA_DIR: dataDir, ADMIN_TOKEN }, 60_000);
      const running = service;
      writes = new Writes(() => running, BATCH);
      ws = await tenant(running);
      for (let i = 0; i < 2; i++) assertStatus(await writes.put(ws), 200);
      assertStatus(await writes.post(ws), 201);

      // Another program fills the disk: first to under what a WAL segment needs, then to the last byte.
      const filler = join(mount, 'filler');
      const refused: Reply[] = [];
      for (const leave of [8 * 1024 * 1024, 0]) {
        rmSync(filler, { force: true });
        execFileSync('fallocate', ['-l', String(free(mount) - leave), filler]);
        // Each round of 30 starts in a second of its own: refused at once, 60 could fit in one second and
        // meet the workspace's limit of 60/s (a 429, answered before the store is reached).
        await sleep(1000 - (Date.now() % 1000));
        for (let i = 0; i < 10; i++) {
          refused.push(await writes.put(ws), await writes.post(ws), await writes.get(ws));
        }
        const readyz = await call(running.adminUrl, 'GET', '/readyz');
        assert.equal(readyz.status, 503);
        assert.deepEqual(JSON.parse(readyz.text), { status: 'storage_full' });
      }
      for (const reply of refused) assertInternalError(reply);
      assert.ok(alive(running), 'the process is still running');
      const logged = warnings(running).filter((line) =>
        line.includes(`embedded database in ${join(dataDir, 'pgdata')} has`),
      );
      assert.ok(logged.length > 0, warnings(running).join('\n'));

      rmSync(filler);
      assertStatus(await writes.put(ws), 200);
      assert.equal((await call(running.adminUrl, 'GET', '/readyz')).status, 200);
      // A crash last: the next steps start from a store with a stale lock, as after a power cut.
      assert.equal(await running.kill('SIGKILL'), null);
      let checked = 0;
      sums = await inStore(dataDir, async (q) => {
        checked = await writes.verify(q);
        return checksums(q, [ws.id], 'infinity');
      });
      t.diagnostic(
        `${refused.length} requests on a full disk, all 500 internal_error in the error shape; log: ${logged[0]}; ${checked} rows checked, 0 partial`,
      );
    });

    test('read-only DATA_DIR: one clear line naming it, exit 1, and the store left there intact', async (t) => {
      execFileSync('mount', ['-o', 'remount,ro', mount]);
      const lines: string[] = [];
      // The store (with the stale lock of the crash), and a DATA_DIR not made yet.
      for (const dir of [dataDir, join(mount, 'never-created')]) {
        const started = refusedStart(dir);
        assert.equal(started.status, 1, started.lines.join('\n'));
        assert.deepEqual(started.lines, [
          `tprm-api: Cannot write to DATA_DIR ${dir}: the file system is read-only (EROFS).`,
        ]);
        lines.push(started.lines[0] as string);
      }
      execFileSync('mount', ['-o', 'remount,rw', mount]);
      const checked = await inStore(dataDir, async (q) => {
        assert.deepEqual(await checksums(q, [ws.id], 'infinity'), sums);
        return writes.verify(q);
      });
      t.diagnostic(`${lines.length} starts refused: ${lines[0]}; ${checked} rows checked, checksums equal`);
    });

    test('a disk too full to start on: one clear line, exit 1', () => {
      execFileSync('fallocate', ['-l', String(free(mount) - 16 * 1024 * 1024), join(mount, 'filler')]);
      const started = refusedStart(dataDir);
      assert.equal(started.status, 1);
      assert.equal(started.lines.length, 1, started.lines.join('\n'));
      assert.match(
        started.lines[0] as string,
        /^tprm-api: The disk of the embedded database in .* has 1\d MiB free, under the 32 MiB it needs/,
      );
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// Redis stopped under load

describe('Redis stopped during load', {
  skip:
    (ENGINE !== 'postgres' &&
      'belongs to the PostgreSQL run of the suite (two API processes share a database server)') ||
    privateRedisUnavailable,
}, () => {
  let h: Harness;
  let redis: PrivateRedis;
  let apis: ServiceProcess[] = [];

  before(async () => {
    h = await Harness.start();
    redis = await startPrivateRedis();
    const env = { DATABASE_URL: h.databaseUrl as string, REDIS_URL: redis.url, ROLE: 'api', ADMIN_TOKEN };
    apis = await Promise.all([startService(env), startService(env)]);
  });
  after(async () => {
    for (const api of apis) if (alive(api)) await api.kill('SIGKILL');
    await redis?.close();
    await h?.close();
  });

  /** Each process's rate-limiter incident lines (Redis down, Redis up), with their times. */
  const incidents = (api: ServiceProcess) =>
    api.output
      .filter((line) => line.includes('"rate_limiter_redis_'))
      .map(
        (line) =>
          JSON.parse(line) as { event: 'rate_limiter_redis_down' | 'rate_limiter_redis_up'; time: number },
      );
  const incidentCount = () => apis.reduce((n, api) => n + incidents(api).length, 0);
  /** Every process's last incident line is `event` ('up' also when there was none). */
  const allSay = (event: string) =>
    apis.every((api) => (incidents(api).at(-1)?.event ?? 'rate_limiter_redis_up') === event);

  /**
   * `count` requests alternating between the two processes within one second, judged only when it fits in
   * one second and no limiter changed mode meanwhile (a Redis reply read after the 100 ms command timeout
   * counts as an outage: under CPU contention that happens; it is counted, not hidden).
   */
  let flaps = 0;
  async function burst(
    ws: Tenant,
    count: number,
    mode: 'rate_limiter_redis_up' | 'rate_limiter_redis_down',
  ): Promise<{ passed: number; statuses: Tally }> {
    for (let round = 1; round <= 8; round++) {
      await sleep(1000 - (Date.now() % 1000) + 20);
      const second = Math.floor(Date.now() / 1000);
      const before = allSay(mode) ? incidentCount() : -1;
      const replies = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          call(`${apis[i % 2]?.publicUrl}/v1`, 'GET', '/suppliers?limit=1', { token: ws.key }),
        ),
      );
      const steady = allSay(mode) && incidentCount() === before;
      if (!steady) flaps += 1;
      if (Math.floor(Date.now() / 1000) !== second || !steady) {
        ws = await tenant(apis[0] as ServiceProcess);
        continue;
      }
      const statuses = new Tally();
      for (const reply of replies) statuses.add(reply);
      return { passed: statuses.count('200'), statuses };
    }
    assert.fail(
      `no burst fitted in one second with the limiters steady in 8 tries: ${JSON.stringify(apis.map(incidents))}`,
    );
  }

  test('no 500: limits fall back to each process while Redis is down, and are shared again once it is back', async (t) => {
    const [a, b] = apis as [ServiceProcess, ServiceProcess];
    const writer = await tenant(a);
    let turn = 0;
    const writes = new Writes(() => apis[turn++ % 2] as ServiceProcess, 20);
    // Steady writes in another workspace all along, under its limits, alternating between the processes.
    const load = loops(t, 1, 100, () => writes.post(writer));

    const shared = await burst(await tenant(a), 80, 'rate_limiter_redis_up');
    assert.equal(shared.passed, 60, shared.statuses.toString());

    await redis.kill();
    const killedAt = Date.now();
    // The steady writes meet the outage first; each process says so once.
    await eventually(async () => allSay('rate_limiter_redis_down'), 10_000);
    const down = await burst(await tenant(b), 140, 'rate_limiter_redis_down');
    assert.equal(down.passed, 120, `per process: ${down.statuses}`);
    assert.equal(down.statuses.count('429'), 20);
    await sleep(LONG ? 10_000 : 500);

    // Taken before the restart: a process may reconnect (and say so) before redis.start() has seen Redis
    // answer, so the restart's instant is no later than this.
    const startedAt = Date.now();
    await redis.start();
    // Each process tries Redis again at most once a second; the steady writes make them try.
    await eventually(async () => allSay('rate_limiter_redis_up'), 10_000);
    const back = await burst(await tenant(a), 80, 'rate_limiter_redis_up');
    assert.equal(back.passed, 60, `shared again: ${back.statuses}`);
    await load.stop();

    assert.deepEqual([...writes.tally.counts.keys()], ['201'], writes.tally.toString());
    for (const api of apis) {
      const lines = incidents(api);
      // Down and up alternate, so each change of mode is said once. Through the outage the process was down:
      // its last line before the restart is a down line (logged after the kill, or before it by a flap that
      // had not recovered yet), and the next line is the up line after the restart. A flap's up line can be
      // logged just after the kill, from a reply read late under load, so "the first line after the kill"
      // is not the outage.
      assert.deepEqual(
        lines.map((line) => line.event),
        lines.map((_, i) => (i % 2 === 0 ? 'rate_limiter_redis_down' : 'rate_limiter_redis_up')),
      );
      const outage = lines.findLastIndex((line) => line.time < startedAt);
      assert.equal(lines[outage]?.event, 'rate_limiter_redis_down', JSON.stringify(lines));
      assert.ok((lines[outage + 1]?.time ?? 0) >= startedAt, JSON.stringify(lines));
      t.diagnostic(
        `${lines.length / 2} down/up pair(s): ${lines.map((line) => `${line.event.slice(19)} at ${line.time - killedAt} ms`).join(', ')} (from the kill)`,
      );
    }
    t.diagnostic(
      `bursts: Redis up ${shared.statuses}; Redis down ${down.statuses}; back ${back.statuses}; ${flaps} burst(s) retried for a limiter flap; steady writes ${writes.tally}`,
    );
    assert.ok(alive(a) && alive(b));
  });
});

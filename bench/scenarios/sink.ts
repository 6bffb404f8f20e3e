// Sinks (issue 26 point 5; docs/decisions.md P209-P210): the audit trail pushed to a fast local HTTP collector.
// Two processes of tprm-api on the bench database: a producer (ROLE=api) whose management API writes, and a
// worker (ROLE=worker) that delivers.
// - drain: a backlog of audit entries (imported in bulk while no worker runs) behind a sink, then a worker
//   starts: entries per second from the first arrival to the last.
// - lag: audit entries written as fast as the producer takes them (8 lanes of PATCH /admin/workspaces/{id},
//   each a `workspace.updated` entry) while the worker runs; for each entry, the time from its `occurred_at`
//   to its arrival at the collector (its req/s: the rate the entries were written at).
import { randomBytes, randomUUID } from 'node:crypto';
import type { Figures, Scenario } from '../scenario.js';
import type { ServerHandle } from '../servers.js';
import { Collector, call, judgeLagAndRate, percentile, spawnRole } from './roles.js';

const BACKLOG = 20_000;
const IMPORT_CHUNK = 5_000;
const WRITES = 2_000;
const LANES = 8;
const LAG = 'lag: entry to collector';
const DRAIN = 'drain: entries per second';

/** `count` audit entries appended to the workspace's trail by the import, `IMPORT_CHUNK` a request. */
async function importBacklog(
  admin: string,
  token: string,
  workspaceId: string,
  count: number,
): Promise<void> {
  for (let done = 0; done < count; done += IMPORT_CHUNK) {
    const audit_logs = Array.from({ length: Math.min(IMPORT_CHUNK, count - done) }, () => ({
      id: randomUUID(),
      action: 'supplier.created',
      actor_type: 'system',
      metadata: {},
    }));
    await call(admin, token, 'POST', `/workspaces/${workspaceId}/import`, { audit_logs });
  }
}

/** Writes `count` audit entries, `LANES` requests at a time; resolves with the number that failed. */
async function writeEntries(
  admin: string,
  token: string,
  workspaceId: string,
  count: number,
): Promise<number> {
  let next = 0;
  let failed = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      await call(admin, token, 'PATCH', `/workspaces/${workspaceId}`, {
        name: `bench-sink ${workspaceId} ${i}`,
      }).catch(() => failed++);
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  return failed;
}

export const sink: Scenario = {
  name: 'sink',
  title: `Sinks: the audit trail to a local HTTP collector (${BACKLOG.toLocaleString('en')} backlog, ${WRITES.toLocaleString('en')} live)`,
  target: 'p99 entry-to-collector < 2 s at the full write rate; a backlog drains at >= 2,000 entries/s',
  // Two processes share the database: a PostgreSQL server (the embedded store belongs to one process).
  stores: ['postgres'],
  sides: ['api'],
  async run(env) {
    const token = `tprm_admin_${randomBytes(32).toString('base64url')}`;
    // Each batch is NDJSON, one audit entry a line.
    const collector = await Collector.start((body) =>
      body
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          const entry = JSON.parse(line) as { id: string; occurred_at: string };
          return { id: entry.id, occurredAt: entry.occurred_at };
        }),
    );
    const producer = await spawnRole(env, 'sink', 'api', token);
    let worker: ServerHandle | null = null;
    try {
      // A workspace of its own per run (removed by cleanup), so that every run starts alike.
      const ws = await call(producer.admin, token, 'POST', '/workspaces', {
        name: `bench-sink ${Date.now()}`,
        plan: 'enterprise',
      });
      const workspaceId = ws?.id as string;
      await call(producer.admin, token, 'POST', `/workspaces/${workspaceId}/sinks`, {
        kind: 'http',
        url: collector.url,
        sources: ['audit'],
      });

      // Drain first: the backlog is written while no worker runs (the sink's own entry is its first record).
      await importBacklog(producer.admin, token, workspaceId, BACKLOG);
      worker = (await spawnRole(env, 'sink', 'worker', token)).handle;
      // The sink's registration, the backlog and each import request's own entry.
      const expected = 1 + BACKLOG + Math.ceil(BACKLOG / IMPORT_CHUNK);
      await collector.waitFor(expected, 120_000);
      const arrivals = [...collector.firstArrival.values()];
      const spanS = (Math.max(...arrivals) - Math.min(...arrivals)) / 1000;
      const drain: Figures = {
        reqPerSec: (arrivals.length - 1) / spanS,
        requests: arrivals.length,
        errors: expected - arrivals.length,
      };

      // Lag: the worker is up and idle; entries arrive as they commit.
      collector.reset();
      const writing = Date.now();
      const failed = await writeEntries(producer.admin, token, workspaceId, WRITES);
      const writeRate = WRITES / ((Date.now() - writing) / 1000);
      await collector.waitFor(WRITES, 60_000);
      const lag: Figures = {
        // The rate the entries were written at: the lag is measured under it.
        reqPerSec: writeRate,
        p50Ms: percentile(collector.lagMs, 50),
        p99Ms: percentile(collector.lagMs, 99),
        requests: collector.lagMs.length,
        errors: failed + (WRITES - collector.lagMs.length),
      };
      return { [LAG]: lag, [DRAIN]: drain };
    } finally {
      await Promise.all([worker?.stop(), producer.handle.stop(), collector.close()]);
    }
  },
  async cleanup(env) {
    await env.db?.query(
      `with gone as (select id from workspaces where name like 'bench-sink %'),
       d1 as (delete from sink_deliveries where workspace_id in (select id from gone)),
       d2 as (delete from audit_logs where workspace_id in (select id from gone))
       select 1`,
    );
    await env.db?.query(
      `delete from sinks where workspace_id in (select id from workspaces where name like 'bench-sink %')`,
    );
    await env.db?.query(`delete from workspaces where name like 'bench-sink %'`);
  },
  judge: (medians) =>
    judgeLagAndRate(medians, { lag: LAG, rate: DRAIN, unit: 'entries/s' }, { lagMs: 2000, rate: 2000 }),
};

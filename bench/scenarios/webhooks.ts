// Webhooks: 1,000 events to a fast local receiver (issue "Performance"; decisions 23-24). Two processes of
// tprm-api on the bench database: a producer (ROLE=api) whose management API raises the alerts, and a worker
// (ROLE=worker) that delivers them.
// - lag: alerts raised 8 at a time while the worker runs; for each event, the time from its `occurred_at`
//   (stamped in the alert's transaction, just before its commit) to its arrival at the receiver.
// - throughput: 1,000 alerts raised while no worker runs, then a worker starts: deliveries per second from
//   its first delivery to its last.
import { randomBytes } from 'node:crypto';
import type { Figures, Scenario } from '../scenario.js';
import type { ServerHandle } from '../servers.js';
import { Collector, call, judgeLagAndRate, percentile, spawnRole } from './roles.js';

const EVENTS = 1000;
const CONCURRENCY = 8;
const LAG = 'lag: event to first attempt';
const THROUGHPUT = 'throughput: deliveries per second';

/** Raises `count` alerts, `CONCURRENCY` at a time; resolves with the number that failed. */
async function raiseAlerts(
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
      await call(admin, token, 'POST', `/workspaces/${workspaceId}/alerts`, {
        scope: 'org',
        severity: 'low',
        title: `bench-webhooks ${i}`,
        body: 'Raised by the webhook benchmark.',
      }).catch(() => failed++);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return failed;
}

export const webhooks: Scenario = {
  name: 'webhooks',
  title: `Webhooks: ${EVENTS.toLocaleString('en')} events to a local receiver`,
  target: 'p99 commit-to-first-attempt < 1 s; >= 500 deliveries/s',
  // Two processes share the database: a PostgreSQL server (the embedded store belongs to one process).
  stores: ['postgres'],
  sides: ['api'],
  async run(env) {
    const token = `tprm_admin_${randomBytes(32).toString('base64url')}`;
    // Each delivery is one event's payload.
    const receiver = await Collector.start((body) => {
      const event = JSON.parse(body) as { event_id: string; occurred_at: string };
      return [{ id: event.event_id, occurredAt: event.occurred_at }];
    });
    const producer = await spawnRole(env, 'webhooks', 'api', token);
    let worker: ServerHandle | null = null;
    try {
      // A workspace of its own per run (removed by cleanup), so that every run starts alike.
      const ws = await call(producer.admin, token, 'POST', '/workspaces', {
        name: `bench-webhooks ${Date.now()}`,
        plan: 'enterprise',
      });
      const workspaceId = ws?.id as string;
      await call(producer.admin, token, 'POST', `/workspaces/${workspaceId}/webhook-endpoints`, {
        url: receiver.url,
        events: ['alert.created'],
      });

      // Throughput first: the backlog is raised while no worker runs.
      let errors = await raiseAlerts(producer.admin, token, workspaceId, EVENTS);
      worker = (await spawnRole(env, 'webhooks', 'worker', token)).handle;
      await receiver.waitFor(EVENTS, 60_000);
      const arrivals = [...receiver.firstArrival.values()];
      const spanS = (Math.max(...arrivals) - Math.min(...arrivals)) / 1000;
      const throughput: Figures = {
        reqPerSec: (arrivals.length - 1) / spanS,
        requests: arrivals.length,
        errors: errors + (EVENTS - arrivals.length),
      };

      // Lag: the worker is up and idle; events arrive as they commit.
      receiver.reset();
      errors = await raiseAlerts(producer.admin, token, workspaceId, EVENTS);
      await receiver.waitFor(EVENTS, 60_000);
      const lag: Figures = {
        p50Ms: percentile(receiver.lagMs, 50),
        p99Ms: percentile(receiver.lagMs, 99),
        requests: receiver.lagMs.length,
        errors: errors + (EVENTS - receiver.lagMs.length),
      };
      return { [LAG]: lag, [THROUGHPUT]: throughput };
    } finally {
      await Promise.all([worker?.stop(), producer.handle.stop(), receiver.close()]);
    }
  },
  async cleanup(env) {
    await env.db?.query(
      `with gone as (select id from workspaces where name like 'bench-webhooks %'),
       d1 as (delete from webhook_deliveries where workspace_id in (select id from gone)),
       d2 as (delete from alerts where workspace_id in (select id from gone)),
       d3 as (delete from audit_logs where workspace_id in (select id from gone)),
       d4 as (delete from webhook_endpoints where workspace_id in (select id from gone))
       select 1`,
    );
    await env.db?.query(
      `delete from events where workspace_id in (select id from workspaces where name like 'bench-webhooks %')`,
    );
    await env.db?.query(`delete from workspaces where name like 'bench-webhooks %'`);
  },
  judge: (medians) =>
    judgeLagAndRate(
      medians,
      { lag: LAG, rate: THROUGHPUT, unit: 'deliveries/s' },
      { lagMs: 1000, rate: 500 },
    ),
};

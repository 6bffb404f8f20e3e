// HTTP load from autocannon (programmatic, in the bench process), spread round-robin over workspaces so that
// no workspace goes past its rate limits, while the server's memory and CPU are sampled. A plan may interleave
// several series (the first page and a deep one) request by request in one run, so that both meet exactly the
// same machine; latency is then measured per series by the bench itself.
import autocannon from 'autocannon';
import type { BenchWorkspace } from './dataset.js';
import type { BenchEnv, Figures, RunFigures, Side } from './scenario.js';
import { Monitor } from './servers.js';

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface LoadPlan {
  /** Names the plan across runs (the previous run's rate sizes the next run's rate-limit reservation). */
  label: string;
  /** Series sent in turn, request by request; their figures are reported under these names. */
  series: readonly string[];
  /** Requests go to these workspaces in turn. */
  workspaces: readonly BenchWorkspace[];
  /** The n-th request of this plan in the bench run, for `workspace`, of `series`. */
  request(workspace: BenchWorkspace, n: number, series: string): RequestSpec;
  /** Status of a successful response; any other counts as an error. */
  expectStatus: number;
  /** A fixed rate in req/s; as fast as the server answers when absent. */
  rate?: number;
  /** Concurrent connections, when not the bench's --connections. */
  connections?: number;
}

// Throughput measured per plan, to estimate the next run's requests for the rate-limit ledger.
const lastRate = new Map<string, number>();
// Requests sent per plan so far: `n` never repeats within a bench run (warm-ups included), so writes that must
// be unique (Idempotency-Key, domain) stay unique.
const sentSoFar = new Map<string, number>();
const FIRST_GUESS_RATE = 6000;

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

interface Tally {
  latencies: number[];
  statusCodes: Record<string, number>;
}

/** How long a run lasts: seconds of load, or a number of requests however long they take. */
type RunLength = { seconds: number } | { requests: number };

async function load(env: BenchEnv, side: Side, plan: LoadPlan, length: RunLength, monitor: boolean) {
  const server = env.servers[side];
  const ids = plan.workspaces.map((w) => w.id);
  const guess =
    plan.rate ??
    Math.min(env.budget.maxRate(ids.length), (lastRate.get(plan.label) ?? FIRST_GUESS_RATE) * 1.3);
  // Only tprm-api has limits; the bare server gets the same requests without counting them. Two tprm-api
  // builds (--against) share the one ledger: with Redis they share the counters too.
  const limited = server.kind === 'tprm-api';
  const expected = 'requests' in length ? length.requests : Math.ceil(guess * length.seconds);
  if (limited) await env.budget.reserve(ids, expected);
  const tallies = new Map<string, Tally>(
    plan.series.map((name) => [name, { latencies: [], statusCodes: {} }]),
  );
  let sent = sentSoFar.get(plan.label) ?? 0;
  let overBudget = 0;
  const watch = monitor ? new Monitor(server.pid, await env.pgPids(side)) : null;
  const result = await autocannon({
    url: server.url,
    connections: plan.connections ?? env.options.connections,
    ...('requests' in length ? { amount: length.requests } : { duration: length.seconds }),
    timeout: 30,
    ...(plan.rate ? { overallRate: plan.rate } : {}),
    requests: [
      {
        // Called just before the request is written; its context lives until the response.
        setupRequest: (request, context) => {
          const n = sent++;
          const workspace = plan.workspaces[n % plan.workspaces.length] as BenchWorkspace;
          // Series alternate request by request, shifted each round over the workspaces so that every
          // workspace gets every series.
          const round = Math.floor(n / plan.workspaces.length);
          const series = plan.series[((n % plan.workspaces.length) + round) % plan.series.length] as string;
          if (limited && !env.budget.take(workspace.id)) overBudget++;
          const spec = plan.request(workspace, n, series);
          context.series = series;
          context.sentAt = performance.now();
          return {
            ...request,
            method: spec.method,
            path: spec.path,
            headers: {
              authorization: `Bearer ${workspace.key}`,
              // The baseline has no authentication: it is told the workspace.
              'x-workspace-id': workspace.id,
              ...(spec.body === undefined ? {} : { 'content-type': 'application/json' }),
              ...spec.headers,
            },
            ...(spec.body === undefined ? {} : { body: spec.body }),
          };
        },
        onResponse: (status, _body, context) => {
          const tally = tallies.get(context.series as string);
          if (!tally) return;
          tally.latencies.push(performance.now() - (context.sentAt as number));
          tally.statusCodes[status] = (tally.statusCodes[status] ?? 0) + 1;
        },
      },
    ],
  });
  const usage = watch?.stop(await env.pgPids(side)) ?? { rssMb: 0, nodeCpuPct: 0, pgCpuPct: 0 };
  sentSoFar.set(plan.label, sent);
  if (overBudget > 0)
    process.stderr.write(`  ${overBudget} requests went past the bench's rate-limit margin\n`);
  const figures: RunFigures = {};
  plan.series.forEach((name, i) => {
    const tally = tallies.get(name) as Tally;
    const sorted = tally.latencies.sort((a, b) => a - b);
    const good = tally.statusCodes[plan.expectStatus] ?? 0;
    figures[name] = {
      reqPerSec: sorted.length / result.duration,
      ...(plan.rate ? { offeredRate: plan.rate / plan.series.length } : {}),
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      ...usage,
      requests: sorted.length,
      // Socket errors and timeouts have no series: the first one carries them.
      errors: sorted.length - good + (i === 0 ? result.errors + result.timeouts : 0),
      statusCodes: tally.statusCodes,
    } satisfies Figures;
  });
  if (!plan.rate) {
    const total = Object.values(figures).reduce((sum, f) => sum + (f.reqPerSec ?? 0), 0);
    lastRate.set(plan.label, Math.max(lastRate.get(plan.label) ?? 0, total));
  }
  return figures;
}

/** A warm-up (not measured: JIT, caches, pool connections), then the measured run. */
export async function runLoad(env: BenchEnv, side: Side, plan: LoadPlan) {
  const { warmupS, requests, durationS } = env.options;
  if (warmupS > 0) await load(env, side, plan, { seconds: warmupS }, false);
  return load(env, side, plan, requests ? { requests } : { seconds: durationS }, true);
}

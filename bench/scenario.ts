// What a benchmark scenario is. The runner (main.ts) alternates the sides of every scenario run by run, so
// machine drift hits both equally, takes the median of each figure over the runs, and asks the scenario to
// judge its target on those medians. Most scenarios drive HTTP load through load.ts; a scenario may also
// measure anything else in `run` (start-up time, webhook delivery lag), as long as it returns Figures.
import type { Queryable } from '../src/storage/db.js';
import type { Dataset } from './dataset.js';
import type { RateBudget } from './keys.js';
import type { ServerHandle, SpawnOptions } from './servers.js';

export type Store = 'postgres' | 'embedded';
/** tprm-api, or the naive bare server of bench/baseline. */
export type Side = 'api' | 'baseline';

/** Figures of one measured series, in one run. */
export interface Figures {
  /** Completed requests (or deliveries) per second. */
  reqPerSec?: number;
  /** The fixed rate the load was sent at (absent: as fast as the server answers). */
  offeredRate?: number;
  /** Latency percentiles (or delivery lag, or time to ready). */
  p50Ms?: number;
  p99Ms?: number;
  /** Peak resident memory of the server process during the run. */
  rssMb?: number;
  /** CPU of the server's Node process, in % of one core. */
  nodeCpuPct?: number;
  /** CPU of the server's PostgreSQL backends, in % of one core (0 on the embedded store: it is in Node). */
  pgCpuPct?: number;
  requests?: number;
  /** CPU time the server process used (one-off measurements such as start-up): less noisy than wall time. */
  cpuMs?: number;
  /** Responses other than the expected status, socket errors and timeouts: any makes the run invalid. */
  errors: number;
  statusCodes?: Record<string, number>;
}

type Metric = Exclude<keyof Figures, 'errors' | 'statusCodes'>;
const METRICS: readonly Metric[] = [
  'reqPerSec',
  'offeredRate',
  'p50Ms',
  'p99Ms',
  'rssMb',
  'nodeCpuPct',
  'pgCpuPct',
  'requests',
  'cpuMs',
];

export interface BenchOptions {
  store: Store;
  durationS: number;
  /**
   * Requests per measured run and side, in place of durationS: a fixed amount of work that completes however
   * slow the machine is (a smoke run), where a timed run on a busy machine may finish no request at all.
   */
  requests?: number;
  warmupS: number;
  runs: number;
  connections: number;
  node: string;
  profileDir: string | null;
}

/** What a scenario may use. */
export interface BenchEnv {
  options: BenchOptions;
  dataset: Dataset;
  budget: RateBudget;
  servers: Record<Side, ServerHandle>;
  /** Starts another tprm-api process (its own settings), for scenarios that need one. */
  spawnApi(options: Partial<SpawnOptions> & { env: Record<string, string> }): Promise<ServerHandle>;
  /** The bench's own connection to the dataset; null on the embedded store, which the servers hold. */
  db: Queryable | null;
  /** PostgreSQL backend pids of a side's connections (none on the embedded store). */
  pgPids(side: Side): Promise<number[]>;
}

/** A series name (e.g. `first` and `deep`) to its figures, for one side in one run. */
export type RunFigures = Record<string, Figures>;

export interface Verdict {
  ok: boolean;
  /** e.g. `req/s 1.02x >= 0.9 ok; p99 1.10x <= 1.3 ok`. */
  detail: string;
}

/** Medians over the runs, per side and series. */
export type Medians = Partial<Record<Side, RunFigures>>;

export interface Scenario {
  /** Name used by --scenarios. */
  name: string;
  title: string;
  /** The target, as the issue states it. */
  target: string;
  stores: readonly Store[];
  sides: readonly Side[];
  /** Once, before the servers start (reads ids and cursors while the bench may still open the store). */
  prepare?(dataset: Dataset, db: Queryable): Promise<void>;
  /** One measured run of one side. */
  run(env: BenchEnv, side: Side): Promise<RunFigures>;
  /** After each run: undo what the run wrote, so every run starts from the same data. */
  cleanup?(env: BenchEnv): Promise<void>;
  /** Whether the medians meet the target; `store` for a scenario whose target differs by engine. */
  judge(medians: Medians, store: Store): Verdict;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Figure by figure medians of several runs of one series (peak memory: the highest; counts: the sums). */
export function medianFigures(runs: readonly Figures[]): Figures {
  const merged: Figures = { errors: runs.reduce((sum, run) => sum + run.errors, 0) };
  for (const metric of METRICS) {
    const values = runs.map((run) => run[metric]).filter((value) => value !== undefined);
    if (values.length === 0) continue;
    merged[metric] =
      metric === 'rssMb'
        ? Math.max(...values)
        : metric === 'requests'
          ? values.reduce((a, b) => a + b, 0)
          : median(values);
  }
  const codes = runs.filter((run) => run.statusCodes);
  if (codes.length > 0) {
    merged.statusCodes = {};
    for (const run of codes)
      for (const [code, count] of Object.entries(run.statusCodes ?? {}))
        merged.statusCodes[code] = (merged.statusCodes[code] ?? 0) + count;
  }
  return merged;
}

/** A ratio check, formatted for the verdict column. */
export function ratioCheck(
  label: string,
  value: number | undefined,
  reference: number | undefined,
  bound: { atLeast?: number; atMost?: number },
): Verdict {
  const ratio = (value ?? Number.NaN) / (reference ?? Number.NaN);
  const ok =
    Number.isFinite(ratio) &&
    (bound.atLeast === undefined || ratio >= bound.atLeast) &&
    (bound.atMost === undefined || ratio <= bound.atMost);
  const limit = bound.atLeast !== undefined ? `>= ${bound.atLeast}` : `<= ${bound.atMost}`;
  return { ok, detail: `${label} ${ratio.toFixed(2)}x ${limit} ${ok ? 'ok' : 'MISSED'}` };
}

/** An absolute bound, formatted for the verdict column. */
export function belowCheck(label: string, value: number | undefined, limit: number, unit: string): Verdict {
  const ok = value !== undefined && value < limit;
  return { ok, detail: `${label} ${value?.toFixed(0) ?? '?'} ${unit} < ${limit} ${ok ? 'ok' : 'MISSED'}` };
}

export function allOf(...verdicts: Verdict[]): Verdict {
  return { ok: verdicts.every((v) => v.ok), detail: verdicts.map((v) => v.detail).join('; ') };
}

/** A scenario whose run had errors proves nothing. */
export function withoutErrors(medians: Medians, verdict: Verdict): Verdict {
  const errors = Object.values(medians)
    .flatMap((series) => Object.values(series ?? {}))
    .reduce((sum, figures) => sum + figures.errors, 0);
  if (errors === 0) return verdict;
  return { ok: false, detail: `INVALID: ${errors} failed requests; ${verdict.detail}` };
}

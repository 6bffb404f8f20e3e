// The bench's side of the rate limits (decision 19: per workspace 60/s, 600/min, 5,000/h, fixed windows
// aligned to the clock). They are real during the run, so load is spread round-robin over many workspaces
// and this ledger mirrors the server's counters with a margin: before a run it waits for fresh windows when
// the run's expected requests would not fit, and it counts every request it sends. A run that meets a 429
// anyway is reported invalid.
//
// The arithmetic: W workspaces take W x 60 req/s, W x 600 req/min and W x 5,000 req/h. A run of D seconds at
// R req/s over them needs R <= 60W (per second, with the requests spread evenly) and R x D within what is left
// of the current minute and hour windows. With the default 200 small workspaces that is 12,000 req/s,
// 120,000 req/min and 1,000,000 req/h: a 10 s run at 5,000 req/s takes 50,000, so at most two such runs fit
// in one minute and the ledger waits for the next minute before a third. The server under test is one process
// per bench run with the in-memory limiter, so the hour budget is the bench run's.
import { type Bucket, WORKSPACE_BUCKETS } from '../src/http/rate-limit.js';

interface Counter {
  window: number;
  count: number;
}

/** Share of each limit the bench allows itself: the server counts at arrival, the bench at sending. */
const MARGIN = 0.9;

export class RateBudget {
  private readonly counters = new Map<string, Counter[]>();

  constructor(
    private readonly buckets: readonly Bucket[] = WORKSPACE_BUCKETS,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  private windows(workspace: string, t: number): Counter[] {
    let counters = this.counters.get(workspace);
    if (!counters) {
      counters = this.buckets.map(() => ({ window: -1, count: 0 }));
      this.counters.set(workspace, counters);
    }
    this.buckets.forEach((bucket, i) => {
      const counter = counters[i] as Counter;
      const window = Math.floor(t / bucket.windowMs);
      if (counter.window !== window) {
        counter.window = window;
        counter.count = 0;
      }
    });
    return counters;
  }

  /** Counts one request of `workspace`; false when it goes past the margin of some bucket. */
  take(workspace: string): boolean {
    const counters = this.windows(workspace, this.now());
    let within = true;
    this.buckets.forEach((bucket, i) => {
      const counter = counters[i] as Counter;
      counter.count += 1;
      if (counter.count > bucket.limit * MARGIN) within = false;
    });
    return within;
  }

  /** The highest rate (req/s) that `workspaces` sustain under the per-second limit, with the margin. */
  maxRate(workspaces: number): number {
    const second = this.buckets.find((b) => b.windowMs === 1000);
    return second ? Math.floor(second.limit * MARGIN * workspaces) : Number.POSITIVE_INFINITY;
  }

  /**
   * Waits until `requests`, spread evenly over `workspaces`, fit in the current windows of every bucket longer
   * than a second. Throws when they could never fit (more than a whole window allows).
   */
  async reserve(workspaces: readonly string[], requests: number): Promise<void> {
    const share = Math.ceil(requests / Math.max(workspaces.length, 1));
    for (const bucket of this.buckets) {
      if (bucket.windowMs > 1000 && share > bucket.limit * MARGIN) {
        throw new Error(
          `${requests} requests over ${workspaces.length} workspaces exceed the ${bucket.name} limit ` +
            `(${bucket.limit} per workspace): use more workspaces (--workspaces) or a shorter --duration`,
        );
      }
    }
    for (;;) {
      const t = this.now();
      let waitMs = 0;
      this.buckets.forEach((bucket, i) => {
        if (bucket.windowMs <= 1000) return;
        const used = Math.max(...workspaces.map((w) => (this.windows(w, t)[i] as Counter).count));
        if (used + share > bucket.limit * MARGIN)
          waitMs = Math.max(waitMs, (Math.floor(t / bucket.windowMs) + 1) * bucket.windowMs - t + 50);
      });
      if (waitMs === 0) return;
      if (waitMs > 5 * 60_000)
        throw new Error('the hour budget of these workspaces is spent: rerun with more --workspaces');
      process.stderr.write(`  waiting ${(waitMs / 1000).toFixed(0)} s for fresh rate-limit windows\n`);
      await this.sleep(waitMs);
    }
  }
}

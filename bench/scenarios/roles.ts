// The pieces of the scenarios that run tprm-api processes of their own (a producer, a worker) and drive their
// management API, and the local receiver they deliver to: webhooks and sinks.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BenchEnv, type Medians, type Verdict, withoutErrors } from '../scenario.js';
import { freePort } from '../servers.js';

/** The `p`th percentile of `values` (nearest rank). */
export const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

/** A tprm-api process of `role` whose management API this scenario drives. */
export async function spawnRole(
  env: BenchEnv,
  scenario: string,
  role: 'api' | 'worker',
  adminToken: string,
  settings: Record<string, string> = {},
) {
  const adminPort = await freePort();
  const handle = await env.spawnApi({
    name: `${scenario}-${role}`,
    readyUrl: `http://127.0.0.1:${adminPort}/readyz`,
    env: {
      ROLE: role,
      ADMIN_PORT: String(adminPort),
      ADMIN_TOKEN: adminToken,
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
      ...settings,
    },
  });
  return { handle, admin: `http://127.0.0.1:${adminPort}/admin` };
}

export async function call(admin: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${admin}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as { id: string }) : undefined;
}

/** What a request's body delivered: each record's id and instant. */
export type RecordsOf = (body: string) => { id: string; occurredAt: string }[];

/** Records when each record first arrives and its lag from its instant; answers 200 at once. */
export class Collector {
  readonly firstArrival = new Map<string, number>();
  readonly lagMs: number[] = [];
  private waiter: { count: number; resolve: () => void } | null = null;

  private constructor(readonly server: Server) {}

  static async start(recordsOf: RecordsOf): Promise<Collector> {
    const server = createServer();
    const collector = new Collector(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const arrived = Date.now();
        res.writeHead(200).end();
        for (const record of recordsOf(Buffer.concat(chunks).toString('utf8'))) {
          if (collector.firstArrival.has(record.id)) continue;
          collector.firstArrival.set(record.id, arrived);
          collector.lagMs.push(arrived - Date.parse(record.occurredAt));
        }
        if (collector.waiter && collector.firstArrival.size >= collector.waiter.count)
          collector.waiter.resolve();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return collector;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/in`;
  }

  reset(): void {
    this.firstArrival.clear();
    this.lagMs.length = 0;
  }

  /** Resolves once `count` distinct records have arrived, or after `timeoutMs` (the rest count as errors). */
  waitFor(count: number, timeoutMs: number): Promise<void> {
    if (this.firstArrival.size >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.waiter = {
        count,
        resolve: () => {
          clearTimeout(timer);
          this.waiter = null;
          resolve();
        },
      };
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The verdict of a delivery scenario: its lag series' p99 under `lagMs`, its rate series at least `rate`. */
export function judgeLagAndRate(
  medians: Medians,
  series: { lag: string; rate: string; unit: string },
  target: { lagMs: number; rate: number },
): Verdict {
  const lagP99 = medians.api?.[series.lag]?.p99Ms;
  const rate = medians.api?.[series.rate]?.reqPerSec;
  const lagOk = lagP99 !== undefined && lagP99 < target.lagMs;
  const rateOk = rate !== undefined && rate >= target.rate;
  return withoutErrors(medians, {
    ok: lagOk && rateOk,
    detail: `lag p99 ${lagP99?.toFixed(0) ?? '?'} ms < ${target.lagMs} ${lagOk ? 'ok' : 'MISSED'}; ${rate?.toFixed(0) ?? '?'} ${series.unit} >= ${target.rate} ${rateOk ? 'ok' : 'MISSED'}`,
  });
}

// The servers under test run in their own child processes, so that their memory is theirs alone and the load
// generator (in the bench process) does not share their event loop. Memory and CPU are read from /proc.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The compiled entry points (this file runs from dist/bench). */
export const API_SCRIPT = fileURLToPath(new URL('../src/main.js', import.meta.url));
export const BASELINE_SCRIPT = fileURLToPath(new URL('./baseline/server.js', import.meta.url));
/** `--ceiling`: the least any server must do to answer list-first (baseline/ceiling.ts). */
export const CEILING_SCRIPT = fileURLToPath(new URL('./baseline/ceiling.js', import.meta.url));

/** The Node options of `npm start` (package.json), so that the bench runs the service as production does. */
export function startNodeArgs(): string[] {
  const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  const words = scripts.start.trim().split(/\s+/);
  return words.slice(1, words.indexOf('dist/src/main.js')).filter((word) => word.startsWith('--'));
}

/** What answers on a side: a tprm-api build (authenticated, rate-limited) or the naive bare server. */
export type ServerKind = 'tprm-api' | 'bare';

export interface SpawnOptions {
  name: string;
  kind: ServerKind;
  /** The Node binary. */
  node: string;
  script: string;
  nodeArgs: string[];
  env: Record<string, string>;
  /** Polled until it answers 200. */
  readyUrl: string;
  /** stdout and stderr of the child (request logs included) go here. */
  logFile: string;
  /** PostgreSQL `application_name` the server's DATABASE_URL carries. */
  applicationName?: string;
  admin?: { url: string; token: string };
  timeoutMs?: number;
}

export interface ServerHandle {
  name: string;
  kind: ServerKind;
  pid: number;
  /** Base URL of the listener under test. */
  url: string;
  port: number;
  /** PostgreSQL `application_name` of its connections, to find its backends. */
  applicationName: string | null;
  /** tprm-api's management listener and its token (kept in memory only), for scenarios that drive it. */
  admin: { url: string; token: string } | null;
  /** Milliseconds from spawn to the first 200 of readyUrl. */
  readyMs: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `url` until it answers 200; rejects when the child exits first or the time is up. */
export async function waitReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`exited with ${child.exitCode}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
  throw new Error(`not ready after ${timeoutMs} ms`);
}

export async function spawnServer(options: SpawnOptions, url: string, port: number): Promise<ServerHandle> {
  const log = openSync(options.logFile, 'a');
  const started = performance.now();
  const child = spawn(options.node, [...options.nodeArgs, options.script], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitReady(options.readyUrl, child, options.timeoutMs ?? 120_000);
  } catch (error) {
    child.kill('SIGKILL');
    const tail = readFileSync(options.logFile, 'utf8').split('\n').slice(-15).join('\n');
    throw new Error(`${options.name} did not start (${(error as Error).message}); log tail:\n${tail}`);
  }
  const readyMs = performance.now() - started;
  return {
    name: options.name,
    kind: options.kind,
    pid: child.pid as number,
    url,
    port,
    applicationName: options.applicationName ?? null,
    admin: options.admin ?? null,
    readyMs,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

// ---------------------------------------------------------------- /proc readings

const CLOCK_TICKS_PER_S = 100;

export function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** User + system CPU of a process so far, in seconds (0 once it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
  } catch {
    return 0;
  }
}

/** Samples a server's memory and CPU (and its PostgreSQL backends' CPU) over one run. */
export class Monitor {
  private peakRss = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly startedAt = performance.now();
  private readonly nodeCpu0: number;
  private readonly pgCpu0: Map<number, number>;

  constructor(
    private readonly pid: number,
    pgPids: readonly number[],
  ) {
    this.nodeCpu0 = cpuSeconds(pid);
    this.pgCpu0 = new Map(pgPids.map((backend) => [backend, cpuSeconds(backend)]));
    this.sample();
    this.timer = setInterval(() => this.sample(), 100);
  }

  private sample(): void {
    this.peakRss = Math.max(this.peakRss, rssMb(this.pid));
  }

  /** `pgPids`: the backends now; one that started during the run counts whole, one that ended is lost. */
  stop(pgPids: readonly number[]): { rssMb: number; nodeCpuPct: number; pgCpuPct: number } {
    clearInterval(this.timer);
    this.sample();
    const seconds = (performance.now() - this.startedAt) / 1000;
    const pgSeconds = pgPids.reduce(
      (sum, backend) => sum + cpuSeconds(backend) - (this.pgCpu0.get(backend) ?? 0),
      0,
    );
    return {
      rssMb: this.peakRss,
      nodeCpuPct: ((cpuSeconds(this.pid) - this.nodeCpu0) / seconds) * 100,
      pgCpuPct: (pgSeconds / seconds) * 100,
    };
  }
}

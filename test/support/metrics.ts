// Reads the Prometheus text of /metrics (management listener), and has promtool judge it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export class Scrape {
  constructor(
    readonly samples: Sample[],
    /** Metric family → its declared type (`# TYPE`). */
    readonly types: Map<string, string>,
    /** The exposition as served. */
    readonly text: string,
  ) {}

  /**
   * The value of the one sample of `name` whose labels include `labels`; 0 when the family is declared but
   * has no such sample yet (a counter never incremented). An undeclared family is an error, not a 0.
   */
  value(name: string, labels: Record<string, string> = {}): number {
    const family = name.replace(/_(bucket|sum|count|total)$/, '');
    if (!this.types.has(name) && !this.types.has(family)) throw new Error(`no metric ${name} in /metrics`);
    const found = this.samples.filter(
      (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
    if (found.length > 1)
      throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
    return found[0]?.value ?? 0;
  }
}

export async function scrape(adminApp: FastifyInstance): Promise<Scrape> {
  const res = await adminApp.inject('/metrics');
  if (res.statusCode !== 200) throw new Error(`/metrics answered ${res.statusCode}`);
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of res.body.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1] as string, type[2] as string);
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[key as string] = value as string;
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return new Scrape(samples, types, res.body);
}

/** Where promtool is, or null: the tests that run it skip without it (P78). */
export function findPromtool(): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'promtool');
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** `promtool check metrics` on this exposition: its complaints, empty when it accepts it. */
export function promtoolProblems(promtool: string, exposition: string): string {
  const result = spawnSync(promtool, ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  if (result.error) throw result.error;
  return result.status === 0 ? '' : `${result.stdout}${result.stderr}`.trim() || `exit ${result.status}`;
}

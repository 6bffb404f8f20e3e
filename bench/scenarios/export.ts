// GET /suppliers as one application/x-ndjson stream (issue 27): every big workspace of the dataset exported
// whole, one after the other (1,000,000 suppliers in all at --scale 1 on PostgreSQL: 10 workspaces of 100,000;
// 100,000 on the embedded store), read by a client that only counts lines. Reports rows per second from the
// first request to the last line, the server's peak RSS and its growth over the RSS before the first export.
// The stream must keep memory flat whatever the size: the growth is the figure to watch.
import { request } from 'node:http';
import type { BenchWorkspace } from '../dataset.js';
import { allOf, belowCheck, type Figures, type Scenario } from '../scenario.js';
import { Monitor, rssMb } from '../servers.js';

const RATE = 'export rows/s (req/s column), peak RSS';
const GROWTH = 'RSS growth over the idle server (RSS column)';
const NEWLINE = 0x0a;

/** Streams one workspace's suppliers; resolves with the rows received (the end line checked, not counted). */
function exportWorkspace(baseUrl: string, workspace: BenchWorkspace): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${baseUrl}/v1/suppliers`);
    const req = request(
      url,
      { headers: { authorization: `Bearer ${workspace.key}`, accept: 'application/x-ndjson' } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`export of ${workspace.name}: HTTP ${res.statusCode}`));
          res.resume();
          return;
        }
        let lines = 0;
        let tail: Buffer = Buffer.alloc(0);
        res.on('data', (chunk: Buffer) => {
          for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) lines++;
          // The end line may span chunks: the last 4 KiB received hold it whole.
          tail = chunk.length >= 4096 ? chunk : Buffer.concat([tail, chunk]).subarray(-4096);
        });
        res.on('end', () => {
          const text = tail.toString('utf8');
          const last = text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
          const end = JSON.parse(last) as { meta?: { count: number } };
          if (end.meta?.count !== lines - 1)
            reject(
              new Error(`export of ${workspace.name} did not end with its count: ${last.slice(0, 200)}`),
            );
          else resolve(lines - 1);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export const exportStream: Scenario = {
  name: 'export',
  title: 'GET /suppliers as application/x-ndjson: every big workspace exported whole',
  target: '>= 50,000 rows/s on PostgreSQL, RSS growth < 50 MiB',
  stores: ['postgres', 'embedded'],
  sides: ['api'],
  async run(env) {
    const server = env.servers.api;
    const idle = rssMb(server.pid);
    const monitor = new Monitor(server.pid, await env.pgPids('api'));
    const started = performance.now();
    let rows = 0;
    for (const workspace of env.dataset.big) rows += await exportWorkspace(server.url, workspace);
    const seconds = (performance.now() - started) / 1000;
    const usage = monitor.stop(await env.pgPids('api'));
    const rate: Figures = {
      reqPerSec: rows / seconds,
      rssMb: usage.rssMb,
      nodeCpuPct: usage.nodeCpuPct,
      pgCpuPct: usage.pgCpuPct,
      requests: rows,
      errors: 0,
    };
    return { [RATE]: rate, [GROWTH]: { rssMb: usage.rssMb - idle, errors: 0 } };
  },
  judge(medians) {
    const rate = medians.api?.[RATE]?.reqPerSec;
    const ok = rate !== undefined && rate >= 50_000;
    return allOf(
      { ok, detail: `${rate?.toFixed(0) ?? '?'} rows/s >= 50000 ${ok ? 'ok' : 'MISSED'}` },
      belowCheck('RSS growth', medians.api?.[GROWTH]?.rssMb, 50, 'MiB'),
    );
  },
};

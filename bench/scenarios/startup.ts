// Start to ready on the embedded store: a first start on an empty data directory (migrations, then the demo
// workspace with its data and key), and a restart on that directory. Timed from spawn to the log line.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SECRETS_FILE_MESSAGE } from '../../src/management/bootstrap.js';
import { allOf, belowCheck, type Figures, type Scenario } from '../scenario.js';
import { API_SCRIPT, cpuSeconds, freePort, rssMb, startNodeArgs } from '../servers.js';

const FIRST = 'first start to demo key (ms in p50)';
const RESTART = 'restart to ready (ms in p50)';

/** Starts tprm-api on `dataDir` and resolves when a stdout line is `marked`: the time it took and the memory. */
async function timedStart(
  node: string,
  dataDir: string,
  marked: (line: string) => boolean,
): Promise<Figures> {
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    ADMIN_PORT: String(await freePort()),
    DATABASE_URL: '',
    REDIS_URL: '',
  };
  const started = performance.now();
  const child = spawn(node, [...startNodeArgs(), API_SCRIPT], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  try {
    const elapsed = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no ready line within 60 s')), 60_000);
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (marked(line)) {
          clearTimeout(timer);
          resolve(performance.now() - started);
        }
      });
      child.once('exit', (code) => reject(new Error(`tprm-api exited with ${code}: ${stderr.slice(-500)}`)));
    });
    const pid = child.pid as number;
    return { p50Ms: elapsed, cpuMs: cpuSeconds(pid) * 1000, rssMb: rssMb(pid), errors: 0 };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

export const startup: Scenario = {
  name: 'startup',
  title: 'Start to ready, embedded store with demo data',
  target: '< 3 s',
  stores: ['postgres', 'embedded'],
  sides: ['api'],
  async run(env) {
    const dataDir = mkdtempSync(join(tmpdir(), 'tprm-bench-start-'));
    try {
      // The demo key is ready when the log names the file it was written to (stderr here is no terminal).
      const first = await timedStart(env.options.node, dataDir, (line) =>
        line.includes(SECRETS_FILE_MESSAGE),
      );
      const restart = await timedStart(env.options.node, dataDir, (line) =>
        line.includes('"msg":"tprm-api ready"'),
      );
      return { [FIRST]: first, [RESTART]: restart };
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
  judge(medians) {
    const cpu = (series: string) => `(CPU ${medians.api?.[series]?.cpuMs?.toFixed(0) ?? '?'} ms)`;
    const first = belowCheck('first start', medians.api?.[FIRST]?.p50Ms, 3000, 'ms');
    const restart = belowCheck('restart', medians.api?.[RESTART]?.p50Ms, 3000, 'ms');
    return allOf(
      { ...first, detail: `${first.detail} ${cpu(FIRST)}` },
      { ...restart, detail: `${restart.detail} ${cpu(RESTART)}` },
    );
  },
};

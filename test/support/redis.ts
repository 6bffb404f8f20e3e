// A private redis-server for tests that stop, stall and restart Redis: the machine's shared Redis (6379) is
// never touched. Needs `redis-server` on PATH (CI has it; the tests that use this run with TEST_REDIS_URL).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';

/** Why a private redis-server cannot be started here, or undefined when it can. */
export const privateRedisUnavailable: string | undefined =
  spawnSync('redis-server', ['--version']).status === 0 ? undefined : 'redis-server is not installed';

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** Whether a PING on `port` is answered within `ms`. */
function pings(port: number, ms = 200): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(ms, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export interface PrivateRedis {
  url: string;
  /** SIGKILL, as a crash or a lost host would. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: nothing is persisted). */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing answers (a Redis that is slow, not down). */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const killOnExit = () => child?.kill('SIGKILL');
  process.on('exit', killOnExit);

  const start = async () => {
    const started = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    child = started;
    const failed = new Promise<never>((_, reject) => started.once('error', reject));
    const deadline = Date.now() + 5000;
    while (!(await Promise.race([pings(port), failed]))) {
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGCONT');
    running.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    close: async () => {
      await kill();
      process.off('exit', killOnExit);
    },
  };
}

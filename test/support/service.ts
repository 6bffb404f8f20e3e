// The real service as a child process (`node dist/src/main.js`), for tests that kill, stop or multiply it.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SECRETS_FILE_MESSAGE } from '../../src/management/bootstrap.js';
import { eventually } from './receiver.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

export interface ServiceProcess {
  child: ChildProcess;
  adminUrl: string;
  publicUrl: string | undefined;
  /** Every log line the process wrote (stdout and stderr). */
  output: string[];
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the service with `env` (on top of a minimal environment) and waits for its ready line. By default the
 * service of this checkout (`node dist/src/main.js`); `command` runs another entry, e.g. a packed copy's
 * `tprm serve`.
 */
export function startService(
  env: Record<string, string>,
  timeoutMs = 30_000,
  command: { args: string[]; cwd?: string } = { args: [MAIN] },
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, command.args, {
    cwd: command.cwd,
    env: {
      PATH: process.env.PATH ?? '',
      ADMIN_PORT: '0',
      PORT: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      if (signal) output.push(`(terminated by ${signal})`);
      resolve(code);
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service not ready after ${timeoutMs} ms:\n${output.join('\n')}`));
    }, timeoutMs);
    const onLine = (line: string) => {
      output.push(line);
      if (!line.includes('"tprm-api ready"')) return;
      clearTimeout(timer);
      const ready = JSON.parse(line) as { admin: string; public?: string };
      resolve({
        child,
        adminUrl: ready.admin,
        publicUrl: ready.public,
        output,
        exited,
        kill: async (signal) => {
          child.kill(signal);
          return exited;
        },
      });
    };
    for (const stream of [child.stdout, child.stderr]) {
      let buffered = '';
      stream?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) onLine(line);
      });
    }
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before it was ready:\n${output.join('\n')}`));
    });
  });
}

/** The secrets a first start shows once, as written to its file in DATA_DIR (stderr not being a terminal). */
export interface FirstStartSecrets {
  file: string;
  /** The whole text, as a person reads it. */
  text: string;
  adminToken: string | undefined;
  apiKey: string | undefined;
}

/** Waits for the log line naming the first start's secrets file, and reads it. */
export async function firstStartSecrets(
  service: ServiceProcess,
  timeoutMs = 60_000,
): Promise<FirstStartSecrets> {
  const file = await eventually(async () => {
    for (const line of service.output) {
      if (!line.startsWith('{')) continue;
      const record = JSON.parse(line) as { msg?: string; file?: string };
      if (record.msg === SECRETS_FILE_MESSAGE) return record.file;
    }
    return undefined;
  }, timeoutMs);
  const text = readFileSync(file, 'utf8');
  return {
    file,
    text,
    adminToken: /^Admin token \(shown once; only its hash is kept\): (\S+)$/m.exec(text)?.[1],
    apiKey: /^Demo API key, every scope \(shown once\): (\S+)$/m.exec(text)?.[1],
  };
}

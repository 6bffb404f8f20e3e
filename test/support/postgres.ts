// A private PostgreSQL cluster for tests that stop and restart the database server: made with initdb in a
// temporary directory and listening on a free loopback port, so the machine's shared PostgreSQL (5432) is never
// touched. PostgreSQL refuses to run as root: as root, its programs run as the `postgres` OS user.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './redis.js';

/** The newest installed PostgreSQL's bin directory, or undefined. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(root, versions[0], 'bin');
}

const BIN = postgresBin();
const asRoot = userInfo().uid === 0;

/** Why a private cluster cannot be made here, or undefined when it can. */
export const privatePostgresUnavailable: string | undefined = !BIN
  ? 'PostgreSQL server programs (initdb, pg_ctl) are not installed under /usr/lib/postgresql'
  : asRoot && !existsSync('/usr/sbin/runuser')
    ? 'running as root without runuser: PostgreSQL cannot be started as the postgres user'
    : undefined;

export interface PrivatePostgres {
  /** The URL of `database` on this cluster. */
  url(database: string): string;
  createDatabase(name: string): Promise<void>;
  /** `pg_ctl stop -m fast`: sessions are terminated (57P01), new connections refused until start(). */
  stop(): void;
  start(): void;
  close(): void;
}

function run(program: string, args: string[]): void {
  const path = join(BIN as string, program);
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  execFileSync(command, argv, { stdio: 'pipe', timeout: 60_000 });
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  if (privatePostgresUnavailable) throw new Error(privatePostgresUnavailable);
  const dir = mkdtempSync(join(tmpdir(), 'tprm-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  // -N: no fsync while initialising a throwaway cluster.
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-N']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`;
  let running = false;
  const start = () => {
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
    running = true;
  };
  const stop = (mode = 'fast') => {
    if (!running) return;
    run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
    running = false;
  };
  const close = () => {
    try {
      stop('immediate');
    } finally {
      process.off('exit', close);
      rmSync(dir, { recursive: true, force: true });
    }
  };
  process.on('exit', close);
  start();
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    url,
    createDatabase: async (name) => {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`create database ${pg.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
    },
    stop: () => stop(),
    start,
    close,
  };
}

// A real rsyslogd (Debian packages rsyslog and rsyslog-gnutls) in the foreground, on a free loopback port, with
// its own configuration, pid file and work directory in a temporary directory: imtcp with TLS (gtls, mode 1,
// anonymous clients), its certificate signed by a CA made here with the openssl CLI. Each message received is
// one line of a file, its RFC 5424 fields as rsyslog parsed them (P225).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { eventually } from './receiver.js';

/** Where rsyslogd is, or null: the tests that need it skip without it. */
export function findRsyslogd(): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin']) {
    const candidate = join(dir, 'rsyslogd');
    if (dir && existsSync(candidate)) return candidate;
  }
  return null;
}

/** A CA (key and certificate) and, when `serverNames` is given, a server certificate it signed, as PEM files. */
export function makeCertificateAuthority(dir: string, name: string, serverNames?: string[]) {
  const paths = {
    ca: join(dir, `${name}-ca.pem`),
    key: join(dir, `${name}-server.key`),
    cert: join(dir, `${name}-server.pem`),
  };
  const caKey = join(dir, `${name}-ca.key`);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    caKey,
    '-out',
    paths.ca,
    '-days',
    '2',
    '-subj',
    `/CN=${name} test CA`,
  );
  if (serverNames) {
    const request = join(dir, `${name}-server.csr`);
    const extensions = join(dir, `${name}-server.ext`);
    const altNames = serverNames.map((n) => (net.isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
    writeFileSync(
      extensions,
      `subjectAltName=${altNames}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
    );
    openssl('req', ...ec, '-keyout', paths.key, '-out', request, '-subj', `/CN=${serverNames[0]}`);
    openssl(
      'x509',
      '-req',
      '-in',
      request,
      '-CA',
      paths.ca,
      '-CAkey',
      caKey,
      '-CAcreateserial',
      '-out',
      paths.cert,
      '-days',
      '2',
      '-extfile',
      extensions,
    );
  }
  return paths;
}

/** One message as rsyslog parsed it. */
export interface SyslogLine {
  pri: number;
  timestamp: string;
  hostname: string;
  appName: string;
  procId: string;
  msgId: string;
  /** STRUCTURED-DATA as received. */
  structuredData: string;
  /** The same, parsed by rsyslog's mmpstrucdata: SD-ID → PARAM-NAME → unescaped value. */
  sd: Record<string, Record<string, string>>;
  /** MSG bytes as UTF-8, the BOM included. */
  msg: string;
}

// Fields cannot hold a `|` but MSG (the last) can; mmpstrucdata's JSON of the SD is rsyslog's own escaping.
const TEMPLATE =
  '%PRI%|%TIMESTAMP:::date-rfc3339%|%HOSTNAME%|%APP-NAME%|%PROCID%|%MSGID%|%STRUCTURED-DATA%|%$!rfc5424-sd%|%msg%\\n';

export class Rsyslog {
  private child: ChildProcess | null = null;
  private stderr = '';
  readonly ca: string;

  private constructor(
    private readonly binary: string,
    private readonly dir: string,
    readonly port: number,
  ) {
    this.ca = readFileSync(join(dir, 'tls-ca.pem'), 'utf8');
  }

  static async start(binary: string): Promise<Rsyslog> {
    const dir = mkdtempSync(join(tmpdir(), 'tprm-rsyslog-'));
    const tls = makeCertificateAuthority(dir, 'tls', ['127.0.0.1', 'localhost']);
    const port = await freePort();
    mkdirSync(join(dir, 'work'));
    writeFileSync(
      join(dir, 'rsyslog.conf'),
      `global(workDirectory="${dir}/work" maxMessageSize="64k"
  defaultNetstreamDriverCAFile="${tls.ca}" defaultNetstreamDriverCertFile="${tls.cert}" defaultNetstreamDriverKeyFile="${tls.key}")
module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")
module(load="mmpstrucdata")
template(name="fields" type="string" string="${TEMPLATE}")
ruleset(name="remote") {
  action(type="mmpstrucdata")
  action(type="omfile" file="${dir}/received.log" template="fields")
}
input(type="imtcp" address="127.0.0.1" port="${port}" ruleset="remote")
`,
    );
    const server = new Rsyslog(binary, dir, port);
    await server.restart();
    return server;
  }

  /** Starts rsyslogd (again, after stop) and resolves once it accepts connections. */
  async restart(): Promise<void> {
    rmSync(join(this.dir, 'rsyslogd.pid'), { force: true });
    const child = spawn(
      this.binary,
      ['-n', '-f', join(this.dir, 'rsyslog.conf'), '-i', join(this.dir, 'rsyslogd.pid')],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.child = child;
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`rsyslogd exited ${child.exitCode}: ${this.stderr}`);
      return accepts(this.port);
    });
  }

  /** Kills rsyslogd (SIGKILL: no chance to tidy up) and resolves once it is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });
  }

  /** Every message received so far, in the order rsyslog wrote them. */
  received(): SyslogLine[] {
    const file = join(this.dir, 'received.log');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [pri, timestamp, hostname, appName, procId, msgId, ...rest] = line.split('|');
        // STRUCTURED-DATA holds no `|` in these tests; the JSON of mmpstrucdata neither; MSG may.
        const [structuredData = '', sdJson = '{}', ...msg] = rest;
        return {
          pri: Number(pri),
          timestamp: timestamp ?? '',
          hostname: hostname ?? '',
          appName: appName ?? '',
          procId: procId ?? '',
          msgId: msgId ?? '',
          structuredData,
          sd: JSON.parse(sdJson),
          msg: msg.join('|'),
        };
      });
  }

  /** Resolves with the messages once there are at least `count`. */
  waitFor(count: number, timeoutMs = 10_000): Promise<SyslogLine[]> {
    return eventually(async () => {
      const lines = this.received();
      return lines.length >= count ? lines : null;
    }, timeoutMs);
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** True when a TCP connection to the port is accepted (then closed at once). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

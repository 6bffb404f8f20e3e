// A loopback proxy in front of the service that fails on cue: the failures a client must survive (a 5xx, a
// connection cut before or after the request reached the service) which the real service does not produce
// on demand. Everything not scripted is forwarded unchanged, so the answers are the service's own.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  /** Pass the request to the service and its answer back. */
  | 'forward'
  /** Answer 500 with the API's error shape, without forwarding. */
  | 'internal-error'
  /** Answer 502 with an HTML page (what a load balancer sends), without forwarding. */
  | 'bad-gateway'
  /** Cut the connection without forwarding: the request never reached the service. */
  | 'drop'
  /** Forward, let the service apply the request, then cut the connection: the response is lost. */
  | 'forward-then-drop'
  /** Never answer, keeping the connection open until the client gives up (a timeout, an abort). */
  | 'stall';

export interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** performance.now() when the request arrived. */
  at: number;
  behaviour: Behaviour;
  /** The service's status, when the request was forwarded. */
  status?: number;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host'];

export class FlakyProxy {
  readonly seen: Seen[] = [];
  private script: Behaviour[] = [];

  private constructor(
    private readonly server: http.Server,
    private readonly target: string,
  ) {}

  static async start(target: string): Promise<FlakyProxy> {
    const server = http.createServer();
    const proxy = new FlakyProxy(server, target.replace(/\/$/, ''));
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        proxy.handle(req, res, Buffer.concat(chunks)).catch(() => res.socket?.destroy());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The next requests behave as listed, in order; every later one is forwarded. Clears `seen`. */
  plan(...behaviours: Behaviour[]): void {
    this.script = behaviours;
    this.seen.length = 0;
  }

  /** The proxy's address, with the path of the service's base URL (e.g. `/v1`). */
  url(path = ''): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): Promise<void> {
    const behaviour = this.script.shift() ?? 'forward';
    const seen: Seen = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      at: performance.now(),
      behaviour,
    };
    this.seen.push(seen);
    if (behaviour === 'drop') {
      req.socket.destroy();
      return;
    }
    if (behaviour === 'stall') return;
    if (behaviour === 'internal-error') {
      const requestId = randomUUID();
      res.writeHead(500, { 'content-type': 'application/json', 'x-request-id': requestId });
      res.end(
        JSON.stringify({ error: { code: 'internal_error', message: 'Injected', request_id: requestId } }),
      );
      return;
    }
    if (behaviour === 'bad-gateway') {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.includes(name) && typeof value === 'string') headers[name] = value;
    }
    const answer = await fetch(`${this.target}${req.url}`, {
      method: req.method,
      headers,
      body: body.length > 0 ? body : undefined,
      redirect: 'manual',
    });
    const payload = Buffer.from(await answer.arrayBuffer());
    seen.status = answer.status;
    if (behaviour === 'forward-then-drop') {
      req.socket.destroy();
      return;
    }
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.includes(name)) out[name] = value;
    });
    res.writeHead(answer.status, out).end(payload);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

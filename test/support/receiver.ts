// A real webhook receiver on loopback: records every request's raw bytes, headers and arrival time, and
// answers what the test tells it to.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  at: number;
  /** The sender's port: requests of one kept-alive connection share it. */
  port: number | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: the parsed event payload
  json: any;
}

export type Answer = (request: Received, res: http.ServerResponse) => void | Promise<void>;

export const answerWith =
  (status: number, body = '') =>
  (_request: Received, res: http.ServerResponse) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(body);
  };

export class Receiver {
  readonly received: Received[] = [];
  /** The answer of every path without its own (answerAt). */
  answer: Answer = answerWith(200, 'ok');
  private readonly answers = new Map<string, Answer>();
  private waiters: { count: number; resolve: () => void }[] = [];

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<Receiver> {
    const server = http.createServer();
    const receiver = new Receiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = JSON.parse(raw.toString('utf8'));
        } catch {
          json = undefined;
        }
        const request = {
          path: req.url ?? '',
          headers: req.headers,
          raw,
          at: Date.now(),
          port: req.socket.remotePort,
          json,
        };
        receiver.received.push(request);
        (receiver.answers.get(request.path) ?? receiver.answer)(request, res);
        receiver.waiters = receiver.waiters.filter((waiter) => {
          if (receiver.received.length < waiter.count) return true;
          waiter.resolve();
          return false;
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** How requests to `path` are answered from now on (tests give each endpoint its own path). */
  answerAt(path: string, answer: Answer): void {
    this.answers.set(path, answer);
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Resolves when `count` requests have arrived in all; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs = 10_000): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`receiver: ${this.received.length} of ${count} requests after ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a truthy value (its result), or throws after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result) return result;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(25);
  }
}

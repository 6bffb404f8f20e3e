// Requests written byte for byte on a real connection, for what in-process injection cannot express: repeated
// headers as Node's parser sees them, requests the parser refuses before the framework runs, and requests
// that arrive slowly or never end.
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface RawResponse {
  status: number;
  /** Header names lowercased; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

/** An app of the service (listening on a loopback port if it is not already), or a loopback port. */
export type RawTarget = FastifyInstance | number;

async function portOf(app: RawTarget): Promise<number> {
  if (typeof app === 'number') return app;
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

/** The responses in `text`, in order (a body is read by its Content-Length; 1xx responses have none). */
export function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/')) {
    const end = rest.indexOf('\r\n\r\n');
    const head = end < 0 ? rest : rest.slice(0, end);
    const [statusLine = '', ...lines] = head.split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const at = line.indexOf(':');
      headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
    }
    const afterHead = end < 0 ? '' : rest.slice(end + 4);
    const length =
      headers['content-length'] === undefined ? afterHead.length : Number(headers['content-length']);
    const status = Number(statusLine.split(' ')[1]);
    const body = status < 200 ? '' : afterHead.slice(0, length);
    responses.push({ status, headers, body });
    rest = status < 200 ? afterHead : afterHead.slice(length);
  }
  return responses;
}

/** Sends `request` (a whole HTTP/1.1 message) to `app`, and waits for the service to close the connection. */
export async function rawRequest(app: RawTarget, request: string | Buffer): Promise<RawResponse> {
  const connection = await rawConnection(app);
  connection.write(request);
  const { closed, received } = await connection.closed(5000);
  if (!closed) throw new Error('no answer within 5 s');
  const [final = { status: Number.NaN, headers: {}, body: '' }] = parseResponses(received).filter(
    (response) => response.status >= 200,
  );
  return final;
}

export interface RawConnection {
  write(text: string | Buffer): void;
  /** Milliseconds since the connection was opened. */
  elapsed(): number;
  /**
   * Waits until the service closes the connection, at most `limitMs`: whether it did, when (ms since the
   * connection was opened) and everything received. Closes it from this side when it did not.
   */
  closed(limitMs: number): Promise<{ closed: boolean; afterMs: number; received: string }>;
}

/** A connection to `app` that records what it receives and when the service closes it. */
export async function rawConnection(app: RawTarget): Promise<RawConnection> {
  const port = await portOf(app);
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const opened = performance.now();
  let received = '';
  let closedAt: number | null = null;
  // A reset after the service's answer is still the service closing the connection.
  socket.on('error', () => undefined);
  socket.on('data', (chunk) => {
    received += chunk.toString('utf8');
  });
  const ended = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closedAt ??= performance.now();
      resolve();
    }),
  );
  return {
    write: (text) => {
      if (!socket.destroyed) socket.write(text);
    },
    elapsed: () => performance.now() - opened,
    async closed(limitMs) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, limitMs)))]);
      clearTimeout(timer);
      const at = closedAt;
      if (at === null) socket.destroy();
      return { closed: at !== null, afterMs: (at ?? performance.now()) - opened, received };
    },
  };
}

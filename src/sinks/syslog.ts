// PLACEHOLDER, replaced at merge by the syslog transport built in another branch (RFC 5424 over TLS, RFC 6587
// octet counting). Same signature; every send fails, so a syslog sink of this branch keeps its position.
import type { SendOutcome, SinkRecord, SinkTransport } from './transport.js';

export interface SyslogTransportOptions {
  host: string;
  port: number;
  /** PEM. */
  ca?: string;
  serverName?: string;
  appName?: string;
  hostname?: string;
  facility?: number;
  timeoutMs: number;
  allowInsecure: boolean;
}

export function createSyslogTransport(_options: SyslogTransportOptions): SinkTransport {
  return {
    send: async (_records: readonly SinkRecord[]): Promise<SendOutcome> => ({
      ok: false,
      status: null,
      error: 'syslog transport not built in this branch',
      durationMs: 0,
    }),
    close: async () => undefined,
  };
}

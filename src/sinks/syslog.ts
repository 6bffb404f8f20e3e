// The syslog sink's wire (issue 26 point 5): RFC 5424 messages, octet-counting framing (RFC 6587 3.4.1), over
// TCP with TLS (RFC 5425). One connection is kept between batches and opened anew after any error. Syslog
// has no application acknowledgement: a batch counts as sent once TLS has handed all its bytes to the kernel
// (P222). The target obeys the webhooks' address policy on the address actually connected to (P223).
// Decisions cited as `P<n>`: docs/decisions.md.

import { isIP } from 'node:net';
import { hostname as machineName } from 'node:os';
import tls from 'node:tls';
import { guardedLookup, isForbiddenAddress, refusedTarget } from '../events/address-policy.js';
import type { SendOutcome, SinkRecord, SinkTransport } from './transport.js';

export interface SyslogTransportOptions {
  host: string;
  port: number;
  /** PEM bundle the server certificate must chain to; default Node's trusted CAs. */
  ca?: string;
  /** The name sent as SNI and that the certificate must carry; default `host`. */
  serverName?: string;
  /** APP-NAME; default 'tprm-api'. */
  appName?: string;
  /** HOSTNAME; default os.hostname(). */
  hostname?: string;
  /** Facility 0-23; default 13, log audit (P221). */
  facility?: number;
  /** Bounds the connection, the handshake and the write of one batch together. */
  timeoutMs: number;
  /** WEBHOOK_ALLOW_INSECURE_URLS: loopback and private addresses allowed. */
  allowInsecure: boolean;
}

/** Facility 13, log audit: what SIEMs route as audit records (P221). */
const DEFAULT_FACILITY = 13;

/**
 * The SD-ID of the structured-data element carrying a record's id and source. 32473 is the enterprise
 * number RFC 5612 reserves for documentation: the project holds no IANA Private Enterprise Number, and this
 * one can never be another organisation's namespace (P221).
 */
const SD_ID = 'tprm@32473';

const NILVALUE = '-';
const BOM = '\uFEFF';

/** An RFC 5424 header field: PRINTUSASCII only (anything else becomes `_`), at most `max` characters. */
function headerField(value: string, max: number): string {
  const printable = value.replace(/[^\x21-\x7e]/g, '_').slice(0, max);
  return printable === '' ? NILVALUE : printable;
}

/** An SD-PARAM value: `"`, `\` and `]` escaped with a backslash (RFC 5424 6.3.3). */
const paramValue = (value: string) => value.replace(/["\\\]]/g, '\\$&');

/**
 * One record as an octet-counted RFC 5424 message: `<len> <PRI>1 TIMESTAMP HOSTNAME APP-NAME - MSGID
 * [tprm@32473 id=".." source=".."] BOM json`, `len` the message's length in bytes.
 */
function syslogFrame(
  record: SinkRecord,
  header: { facility: number; hostname: string; appName: string },
): Buffer {
  const instant = new Date(record.time);
  const timestamp = Number.isNaN(instant.getTime()) ? NILVALUE : instant.toISOString();
  const structuredData = `[${SD_ID} id="${paramValue(record.id)}" source="${paramValue(record.source)}"]`;
  const message = Buffer.from(
    `<${header.facility * 8 + record.severity}>1 ${timestamp} ${header.hostname} ${header.appName} ${NILVALUE} ` +
      `${headerField(record.kind, 32)} ${structuredData} ${BOM}${record.json}`,
  );
  return Buffer.concat([Buffer.from(`${message.length} `), message]);
}

/** Why a send failed, on one line; never an address the name resolved to (P73), never a credential. */
function failureText(error: NodeJS.ErrnoException, options: SyslogTransportOptions): string {
  const text = (() => {
    if (error.code === 'ETIMEDOUT_SINK')
      return `timeout: the batch was not written within ${options.timeoutMs} ms`;
    // refusedTarget()'s reason in a sink's words: it names neither the address nor its kind (P73).
    if (error.code === 'EFORBIDDENADDRESS')
      return 'blocked: the target is refused: sinks reach public addresses only';
    if (error.code === 'ERR_TLS_CERT_ALTNAME_INVALID')
      return `tls: the server certificate is not valid for ${options.serverName ?? options.host}`;
    if (error.code && CERTIFICATE_VERIFY_CODE.test(error.code))
      return `tls: the server certificate is refused: ${error.code}: ${error.message}`;
    // Node's socket errors end with the address and port tried ("connect ECONNREFUSED 10.0.0.7:6514").
    if (error.code && error.syscall) return `${error.code}: ${error.syscall} failed`;
    return error.code ? `${error.code}: ${error.message}` : `connection error: ${error.message}`;
  })();
  return text.replace(/\s+/g, ' ');
}

/** The codes of OpenSSL's certificate verification errors as Node names them (X509_V_ERR_* without the prefix). */
const CERTIFICATE_VERIFY_CODE =
  /^(?!ERR_)[A-Z_]*(CERT|CRL|UNABLE_TO|INVALID_CA|PATH_LENGTH|INVALID_PURPOSE)[A-Z_]*$/;

const failure = (code: string, message: string): NodeJS.ErrnoException =>
  Object.assign(new Error(message), { code });

export function createSyslogTransport(options: SyslogTransportOptions): SinkTransport {
  const facility = options.facility ?? DEFAULT_FACILITY;
  if (!Number.isInteger(facility) || facility < 0 || facility > 23)
    throw new RangeError('facility must be an integer from 0 to 23');
  const header = {
    facility,
    hostname: headerField(options.hostname ?? machineName(), 255),
    appName: headerField(options.appName ?? 'tprm-api', 48),
  };
  const certificateName = options.serverName ?? options.host;
  const lookup = guardedLookup(options.allowInsecure);
  /** The connection kept between batches; dropped as soon as it errs or closes. */
  let kept: tls.TLSSocket | null = null;
  /** Batches go out one after another on the one connection, in the order send was called. */
  let previous: Promise<unknown> = Promise.resolve();

  function open(): tls.TLSSocket {
    // Node does not call `lookup` for an IP literal: the literal is judged here.
    if (!options.allowInsecure && isIP(options.host) !== 0 && isForbiddenAddress(options.host))
      throw refusedTarget();
    const socket = tls.connect({
      host: options.host,
      port: options.port,
      // SNI carries names only (RFC 6066 3).
      servername: isIP(certificateName) === 0 ? certificateName : undefined,
      checkServerIdentity: (_host, certificate) => tls.checkServerIdentity(certificateName, certificate),
      ca: options.ca,
      minVersion: 'TLSv1.2',
      rejectUnauthorized: true,
      lookup,
    });
    if (!options.allowInsecure) {
      // The address actually connected to, whatever resolved it.
      socket.once('connect', () => {
        if (isForbiddenAddress(socket.remoteAddress ?? '')) socket.destroy(refusedTarget());
      });
    }
    // Between batches nobody listens: an error there only means the next batch opens a new connection.
    socket.on('error', () => {});
    socket.on('close', () => {
      if (kept === socket) kept = null;
    });
    // A syslog server sends nothing; whatever comes is read and dropped so it never fills a buffer.
    socket.resume();
    return socket;
  }

  /** Resolves once every byte is handed to the kernel; rejects on the first error, close or the timeout. */
  const write = (bytes: Buffer) =>
    new Promise<void>((resolve, reject) => {
      const socket = kept && !kept.destroyed ? kept : open();
      kept = socket;
      const settle = (error?: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        socket.off('error', settle);
        socket.off('close', closed);
        if (!error) return resolve();
        if (kept === socket) kept = null;
        socket.destroy();
        reject(error);
      };
      const closed = () =>
        settle(failure('ECONNCLOSED', 'the connection closed before the batch was written'));
      const timer = setTimeout(() => settle(failure('ETIMEDOUT_SINK', 'timeout')), options.timeoutMs);
      socket.once('error', settle);
      socket.once('close', closed);
      // Before the handshake completes TLS holds the bytes; the callback runs once they reached the kernel.
      socket.write(bytes, (error) => settle(error ?? undefined));
    });

  async function sendBatch(records: readonly SinkRecord[]): Promise<SendOutcome> {
    const started = performance.now();
    const outcome = (error: string | null): SendOutcome => ({
      ok: error === null,
      status: null,
      error,
      durationMs: Math.round(performance.now() - started),
    });
    const invalid = records.find((r) => !Number.isInteger(r.severity) || r.severity < 0 || r.severity > 7);
    if (invalid) return outcome(`record ${invalid.id}: severity must be an integer from 0 to 7`);
    if (records.length === 0) return outcome(null);
    try {
      await write(Buffer.concat(records.map((record) => syslogFrame(record, header))));
      return outcome(null);
    } catch (error) {
      return outcome(failureText(error as NodeJS.ErrnoException, options));
    }
  }

  return {
    send(records) {
      const sent = previous.then(() => sendBatch(records));
      previous = sent;
      return sent;
    },
    async close() {
      await previous;
      const socket = kept;
      kept = null;
      if (!socket || socket.closed) return;
      // close_notify and FIN, so the server reads to the end; cut after the timeout if it never answers.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => socket.destroy(), options.timeoutMs);
        socket.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        socket.end();
      });
    },
  };
}

// The http sink's transport (docs/decisions.md P208): one POST per batch, the records as NDJSON (one JSON
// document a line, `Content-Type: application/x-ndjson`), or in Splunk HTTP Event Collector mode each record
// wrapped in HEC's event envelope and the token sent as `Authorization: Splunk <token>`. The webhooks' sender
// does the POST (src/events/sender.ts): the same address policy at each connection, timeout, no redirects, and
// only a 2xx acknowledges the batch. An outcome's error never holds the credential, the URL or an address.
import { createPoster } from '../events/sender.js';
import type { SendOutcome, SinkRecord, SinkTransport } from './transport.js';

export interface HttpTransportOptions {
  url: string;
  /** Splunk HTTP Event Collector mode. */
  hec: boolean;
  /** The HEC token, or the Authorization header's whole value; null for none. */
  credential: string | null;
  /** HEC's `host`: the machine that sends. */
  hostname: string;
  /** HEC's `source`: the workspace whose records these are. */
  workspaceId: string;
  timeoutMs: number;
  allowInsecure: boolean;
  userAgent: string;
}

/** HEC's `sourcetype` of a record: the product and the audit action or event type. */
export const hecSourcetype = (record: SinkRecord) => `tprm-api:${record.kind}`;

/** One NDJSON line of a batch: the record itself, or its HEC event envelope (time in epoch seconds with ms). */
function line(record: SinkRecord, options: HttpTransportOptions): string {
  if (!options.hec) return record.json;
  const time = Date.parse(record.time) / 1000;
  return (
    `{"time":${time},"host":${JSON.stringify(options.hostname)},` +
    `"source":${JSON.stringify(`tprm-api/${options.workspaceId}`)},` +
    `"sourcetype":${JSON.stringify(hecSourcetype(record))},"event":${record.json}}`
  );
}

export function createHttpTransport(options: HttpTransportOptions): SinkTransport {
  const poster = createPoster(options);
  const headers: Record<string, string> = { 'content-type': 'application/x-ndjson' };
  if (options.credential !== null)
    headers.authorization = options.hec ? `Splunk ${options.credential}` : options.credential;
  return {
    async send(records: readonly SinkRecord[]): Promise<SendOutcome> {
      const started = Date.now();
      try {
        const body = Buffer.from(`${records.map((record) => line(record, options)).join('\n')}\n`, 'utf8');
        const outcome = await poster.post(options.url, body, headers);
        return {
          ok: outcome.delivered,
          status: outcome.responseStatus,
          error: outcome.error,
          durationMs: Date.now() - started,
        };
      } catch (error) {
        return {
          ok: false,
          status: null,
          error: `send failed: ${(error as Error).message}`,
          durationMs: Date.now() - started,
        };
      }
    },
    async close() {
      poster.close();
    },
  };
}

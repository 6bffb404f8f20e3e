// The part of a webhook signature check that needs no cryptography: the input guards, the header's parsing and
// the timestamp's tolerance. Shared by the check on node:crypto (signing.ts) and the one on Web Crypto
// (webhooks-web.ts), so that both judge a header alike; it imports nothing, so the Web Crypto entry point stays
// free of Node.

/** Default maximum age (and maximum clock skew into the future) of `t`, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Why a signature was rejected. */
export type SignatureFailure =
  | 'malformed_input'
  | 'bad_timestamp'
  | 'no_signature'
  | 'timestamp_out_of_tolerance'
  | 'mismatch';

/**
 * The header's `t` and its `v1` candidates (lowercased), or why the delivery is refused before any MAC is
 * computed. Items are separated by `,`, each `key=value`, spaces around either ignored; unknown schemes (`v0`,
 * ...) are ignored; any number of `v1` values; exactly one `t`, digits only, within `toleranceSeconds` of
 * `nowSeconds` (in the past or the future). Never throws, whatever the input.
 */
export function readSignatureHeader(
  rawBody: unknown,
  header: unknown,
  secret: unknown,
  toleranceSeconds: number,
  nowSeconds: number,
): { ok: true; timestamp: number; candidates: string[] } | { ok: false; reason: SignatureFailure } {
  // Runtime guards: the SDK is used from plain JavaScript, where a parsed JSON object is a common mistake.
  if (
    (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) ||
    typeof header !== 'string' ||
    typeof secret !== 'string' ||
    secret === ''
  )
    return { ok: false, reason: 'malformed_input' };
  let timestamp: number | undefined;
  let timestampCount = 0;
  const candidates: string[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === 't') {
      timestampCount++;
      timestamp = /^\d{1,15}$/.test(value) ? Number(value) : undefined;
    } else if (key === 'v1') candidates.push(value.toLowerCase());
  }
  // Two `t` values would make it ambiguous which one was signed: refuse rather than guess.
  if (timestamp === undefined || timestampCount !== 1) return { ok: false, reason: 'bad_timestamp' };
  if (candidates.length === 0) return { ok: false, reason: 'no_signature' };
  // Written as "not within" so that a NaN clock or tolerance fails closed instead of skipping the check.
  if (!(Math.abs(nowSeconds - timestamp) <= toleranceSeconds))
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  return { ok: true, timestamp, candidates };
}

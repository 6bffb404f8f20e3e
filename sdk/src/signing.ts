// Webhook signatures, compatible with the payment processor's scheme (decision 28), so its public
// libraries verify our deliveries. One file for both sides: the SDK verifies with it and the server
// (src/events) signs with it, so the two cannot drift. Besides node:crypto it reads only the header rules it
// shares with the Web Crypto check (signature-header.ts).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DEFAULT_TOLERANCE_SECONDS, readSignatureHeader, type SignatureFailure } from './signature-header.js';

export { DEFAULT_TOLERANCE_SECONDS };

/** Name of the HTTP header that carries the signature. */
export const SIGNATURE_HEADER = 'Service-Signature';

/** Lowercase hex HMAC-SHA256 over `<t>.<raw body bytes>`, keyed with the whole secret string (`whsec_...`). */
function sign(secret: string, rawBody: string | Uint8Array, t: number): string {
  // Feed the bytes as they are: a byte body (Buffer or Uint8Array) is never re-encoded, so what is signed
  // is what is sent.
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
}

/**
 * `t=<t>,v1=<hex>[,v1=<hex>...]`, one `v1` per secret, in the order given (during rotation: new, then
 * old). No spaces: the payment processor's own parser does not trim.
 */
export function signatureHeader(
  secrets: readonly string[],
  rawBody: string | Uint8Array,
  timestampSeconds: number,
): string {
  if (secrets.length === 0) throw new Error('signatureHeader: at least one signing secret is required');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error(
      `signatureHeader: timestamp must be a non-negative integer of seconds, got ${timestampSeconds}`,
    );
  }
  const parts = [`t=${timestampSeconds}`];
  for (const secret of secrets) parts.push(`v1=${sign(secret, rawBody, timestampSeconds)}`);
  return parts.join(',');
}

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: SignatureFailure };

/**
 * Like {@link verifySignature} but says why a delivery was rejected (useful in a receiver's logs).
 * Never throws, whatever the input.
 *
 * Header parsing: items separated by `,`, each `key=value`, spaces around either ignored; unknown schemes
 * (`v0`, ...) are ignored; any number of `v1` values, one of which must match; exactly one `t`, digits only.
 * `t` is rejected when more than `toleranceSeconds` in the past or in the future (pass `Infinity` to skip).
 */
export function checkSignature(
  rawBody: string | Uint8Array,
  header: string,
  secret: string,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  nowSeconds = Math.floor(Date.now() / 1000),
): SignatureCheck {
  const read = readSignatureHeader(rawBody, header, secret, toleranceSeconds, nowSeconds);
  if (!read.ok) return read;
  const { timestamp, candidates } = read;
  const expected = Buffer.from(sign(secret, rawBody, timestamp), 'utf8');
  let match = false;
  for (const candidate of candidates) {
    const given = Buffer.from(candidate, 'utf8');
    // timingSafeEqual throws on unequal lengths; the length of a hex HMAC is public anyway.
    // No early exit, so the time taken does not depend on which candidate matched.
    if (given.length === expected.length && timingSafeEqual(given, expected)) match = true;
  }
  return match ? { ok: true, timestamp } : { ok: false, reason: 'mismatch' };
}

/**
 * True when `header` carries a `v1` signature of `rawBody` made with `secret` and a `t` within
 * `toleranceSeconds` of `nowSeconds`. Never throws. Use {@link checkSignature} to learn the reason.
 */
export function verifySignature(
  rawBody: string | Uint8Array,
  header: string,
  secret: string,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  return checkSignature(rawBody, header, secret, toleranceSeconds, nowSeconds).ok;
}

/**
 * A new signing secret: `whsec_` followed by 32 random bytes in base64url (256 bits). `random` is for
 * documentation examples, which show a fixed secret of the same form.
 */
export function generateSigningSecret(random: (size: number) => Buffer = randomBytes): string {
  return `whsec_${random(32).toString('base64url')}`;
}

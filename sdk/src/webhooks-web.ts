// Webhook verification on Web Crypto (`globalThis.crypto.subtle`), for runtimes without node:crypto: edge
// functions, Deno, Bun, browsers' workers. The same scheme and answers as the synchronous check (signing.ts):
// `t=<t>,v1=<hex>[,…]`, HMAC-SHA256 over `<t>.<raw body>` keyed with the whole `whsec_…` string, one of the `v1`
// matching and `t` within the tolerance. This module imports nothing from Node, so it is also the package's
// `@tprm/client/webhooks` entry point; SubtleCrypto only signs asynchronously, hence the Promise (as
// stripe-node's `constructEventAsync` on its SubtleCryptoProvider).
import { TprmError } from './errors.js';
import type { webhooks as WebhookOperations } from './generated/openapi.js';
import { DEFAULT_TOLERANCE_SECONDS, readSignatureHeader, type SignatureFailure } from './signature-header.js';

export type { SignatureFailure };

export type WebhookEventType = keyof WebhookOperations;

/** An event payload, discriminated by `type`: `if (event.type === 'alert.created') event.data.scope`. */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = {
  [K in T]: WebhookOperations[K]['post']['requestBody']['content']['application/json'];
}[T];

export type AsyncSignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: SignatureFailure };

/** The delivery's signature did not verify: answer 400 (not 5xx, which would be retried). */
export class WebhookSignatureError extends TprmError {
  constructor(readonly reason: SignatureFailure) {
    super(`webhook signature rejected: ${reason}`);
  }
}

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();

/** What this module uses of Web Crypto's SubtleCrypto (declared here: the SDK is built without the DOM types). */
interface HmacSubtle {
  importKey(
    format: 'raw',
    key: Uint8Array,
    algorithm: { name: 'HMAC'; hash: 'SHA-256' },
    extractable: false,
    usages: ['sign'],
  ): Promise<unknown>;
  sign(algorithm: 'HMAC', key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
}

function subtle(): HmacSubtle {
  const found = (globalThis as { crypto?: { subtle?: HmacSubtle } }).crypto?.subtle;
  if (!found) throw new TprmError('Web Crypto (globalThis.crypto.subtle) is not available on this runtime');
  return found;
}

/** Lowercase hex HMAC-SHA256 of `<t>.<raw body bytes>` keyed with the secret's UTF-8 bytes. */
async function sign(secret: string, rawBody: string | Uint8Array, t: number): Promise<string> {
  const crypto = subtle();
  const key = await crypto.importKey(
    'raw',
    ENCODER.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const prefix = ENCODER.encode(`${t}.`);
  const body = typeof rawBody === 'string' ? ENCODER.encode(rawBody) : rawBody;
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix, 0);
  message.set(body, prefix.length);
  const mac = new Uint8Array(await crypto.sign('HMAC', key, message));
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Equal strings, in a time that does not depend on where they differ (their lengths are public). */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * Like signing.ts's `checkSignature`, on Web Crypto: says why a delivery was rejected. Never rejects its
 * Promise on bad input; the header is parsed by the same rules (spaces ignored, unknown schemes ignored, any
 * number of `v1`, exactly one `t` of digits only).
 */
export async function checkSignatureAsync(
  rawBody: string | Uint8Array,
  header: string,
  secret: string,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<AsyncSignatureCheck> {
  const read = readSignatureHeader(rawBody, header, secret, toleranceSeconds, nowSeconds);
  if (!read.ok) return read;
  const { timestamp, candidates } = read;
  const expected = await sign(secret, rawBody, timestamp);
  let match = false;
  // No early exit: the time taken does not depend on which candidate matched.
  for (const candidate of candidates) if (sameText(candidate, expected)) match = true;
  return match ? { ok: true, timestamp } : { ok: false, reason: 'mismatch' };
}

/** True when the signature verifies (see {@link checkSignatureAsync}). Never rejects. */
export async function verifyAsync(
  rawBody: string | Uint8Array,
  header: string | string[] | undefined | null,
  secret: string,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): Promise<boolean> {
  return (await checkSignatureAsync(rawBody, header as string, secret, toleranceSeconds)).ok;
}

/**
 * The verified event, typed, on Web Crypto; rejects with {@link WebhookSignatureError} when the signature does
 * not verify. `rawBody` is the body as received (`await request.text()`, or its bytes), before any JSON parsing.
 *
 * On an edge runtime, take it from the `@tprm/client/webhooks` entry point, then:
 * `const event = await constructEventAsync(await request.text(), request.headers.get('Service-Signature'), secret);`
 */
export async function constructEventAsync(
  rawBody: string | Uint8Array,
  header: string | string[] | undefined | null,
  secret: string,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): Promise<WebhookEvent> {
  // An array (a repeated header) is refused by the check as malformed input.
  const check = await checkSignatureAsync(rawBody, header as string, secret, toleranceSeconds);
  if (!check.ok) throw new WebhookSignatureError(check.reason);
  return JSON.parse(typeof rawBody === 'string' ? rawBody : DECODER.decode(rawBody)) as WebhookEvent;
}

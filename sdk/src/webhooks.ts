// Receiving webhooks: the signature check is the service's own (signing.ts, shared with the server), and the
// event types come from the `webhooks` of the OpenAPI document.

import {
  checkSignature,
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  type SignatureCheck,
  signatureHeader,
} from './signing.js';
import {
  type AsyncSignatureCheck,
  checkSignatureAsync,
  constructEventAsync,
  type SignatureFailure,
  type WebhookEvent,
  type WebhookEventType,
  WebhookSignatureError,
} from './webhooks-web.js';

export type { SignatureFailure, WebhookEvent, WebhookEventType };
export { WebhookSignatureError };

/**
 * The raw body as received, before any JSON parsing (re-serialized JSON would not match the signature): a
 * string, or the bytes as a `Buffer` or any `Uint8Array` (what `Request.arrayBuffer()` gives, wrapped).
 */
export type RawBody = string | Uint8Array;
/** The `Service-Signature` request header as a Node server gives it. */
export type SignatureHeaderValue = string | string[] | undefined;

const UTF8 = new TextDecoder();

export const webhooks = {
  /** Name of the request header carrying the signature (`Service-Signature`). */
  SIGNATURE_HEADER,

  /**
   * True when `header` holds a `v1` HMAC-SHA256 of `rawBody` made with `secret` and a `t` at most
   * `toleranceSeconds` from now (default 300: the specification's 5 minutes). Never throws.
   */
  verify(
    rawBody: RawBody,
    header: SignatureHeaderValue,
    secret: string,
    toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  ): boolean {
    return webhooks.check(rawBody, header, secret, toleranceSeconds).ok;
  },

  /** Like {@link verify}, with the reason of a rejection. */
  check(
    rawBody: RawBody,
    header: SignatureHeaderValue,
    secret: string,
    toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  ): SignatureCheck {
    // An array (a repeated header) is refused by the check as malformed input.
    return checkSignature(rawBody, header as string, secret, toleranceSeconds);
  },

  /** The verified event, typed; throws {@link WebhookSignatureError} when the signature does not verify. */
  constructEvent(
    rawBody: RawBody,
    header: SignatureHeaderValue,
    secret: string,
    toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  ): WebhookEvent {
    const check = webhooks.check(rawBody, header, secret, toleranceSeconds);
    if (!check.ok) throw new WebhookSignatureError(check.reason);
    return JSON.parse(typeof rawBody === 'string' ? rawBody : UTF8.decode(rawBody)) as WebhookEvent;
  },

  /**
   * Like {@link constructEvent}, on Web Crypto (`globalThis.crypto.subtle`) instead of node:crypto: for edge
   * functions, Deno, Bun and browsers. Resolves with the event; rejects with {@link WebhookSignatureError}.
   * Where node:crypto is absent, import it from `@tprm/client/webhooks`, which loads nothing from Node.
   */
  constructEventAsync(
    rawBody: RawBody,
    header: SignatureHeaderValue,
    secret: string,
    toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  ): Promise<WebhookEvent> {
    return constructEventAsync(rawBody, header, secret, toleranceSeconds);
  },

  /** Like {@link check}, on Web Crypto. Never rejects. */
  checkAsync(
    rawBody: RawBody,
    header: SignatureHeaderValue,
    secret: string,
    toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  ): Promise<AsyncSignatureCheck> {
    return checkSignatureAsync(rawBody, header as string, secret, toleranceSeconds);
  },

  /** A valid header for `rawBody`, to test a receiver with deliveries of your own. */
  signatureHeader(
    rawBody: RawBody,
    secret: string,
    timestampSeconds = Math.floor(Date.now() / 1000),
  ): string {
    return signatureHeader([secret], rawBody, timestampSeconds);
  },
};

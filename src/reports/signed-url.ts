import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { BASE64URL, MAX_TOKEN_CHARS, UNIX_SECONDS } from '../schema/signed-url.js';

/** The spec fixes signed PDF URLs at 5 minutes. */
export const SIGNED_URL_TTL_SECONDS = 300;

// The object key is encrypted (AES-256-GCM), not merely encoded: base64 would still hand the storage path to
// anyone holding the URL, and the spec says the stored object path is never returned. Separate keys for
// encryption and signing are derived from the one configured secret so neither use weakens the other.
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SIG_BYTES = 32;
function deriveKeys(secret: Buffer | string): { enc: Buffer; mac: Buffer } {
  const raw = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  if (raw.length === 0) throw new Error('Signed URL secret must not be empty');
  const derive = (label: string) => createHmac('sha256', raw).update(label).digest();
  return { enc: derive('tprm signed-url encryption v1'), mac: derive('tprm signed-url signature v1') };
}

function sign(mac: Buffer, token: string, expires: string): Buffer {
  return createHmac('sha256', mac).update(`${token}.${expires}`).digest();
}

export function signObjectUrl(opts: {
  baseUrl: string;
  objectKey: string;
  expiresAt: number /* unix seconds */;
  secret: Buffer | string;
}): string {
  if (!Number.isSafeInteger(opts.expiresAt) || opts.expiresAt <= 0)
    throw new Error('expiresAt must be unix seconds');
  if (opts.objectKey.length === 0) throw new Error('objectKey must not be empty');
  const { enc, mac } = deriveKeys(opts.secret);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', enc, iv);
  const body = Buffer.concat([cipher.update(opts.objectKey, 'utf8'), cipher.final()]);
  const token = Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  const expires = String(opts.expiresAt);
  const signature = sign(mac, token, expires).toString('base64url');
  return `${opts.baseUrl.replace(/\/+$/, '')}/files/${token}?expires=${expires}&signature=${signature}`;
}

export function verifyObjectUrl(opts: {
  token: string;
  expires: string;
  signature: string;
  secret: Buffer | string;
  now?: number;
}): { ok: true; objectKey: string } | { ok: false; reason: 'expired' | 'invalid' } {
  const invalid = { ok: false, reason: 'invalid' } as const;
  const { token, expires, signature } = opts;
  // Shape checks first: these values come straight from the query string and may be anything (or arrays).
  if (typeof token !== 'string' || typeof expires !== 'string' || typeof signature !== 'string')
    return invalid;
  if (token.length > MAX_TOKEN_CHARS || !BASE64URL.test(token) || !BASE64URL.test(signature)) return invalid;
  if (!UNIX_SECONDS.test(expires)) return invalid;

  const { enc, mac } = deriveKeys(opts.secret);
  const given = Buffer.from(signature, 'base64url');
  const expected = sign(mac, token, expires);
  // timingSafeEqual throws on unequal lengths, so the length is checked first (length is not secret).
  // A base64url string can carry ignored padding bits: require the canonical spelling so one URL has one form.
  if (
    given.length !== SIG_BYTES ||
    given.toString('base64url') !== signature ||
    !timingSafeEqual(given, expected)
  ) {
    return invalid;
  }

  // Expiry is checked after the signature, so `expired` is only ever reported for a URL we issued; an edited
  // `expires` fails the signature instead of extending the URL.
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (now >= Number(expires)) return { ok: false, reason: 'expired' };

  const raw = Buffer.from(token, 'base64url');
  if (raw.length <= IV_BYTES + TAG_BYTES) return invalid;
  try {
    const decipher = createDecipheriv('aes-256-gcm', enc, raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    const key = Buffer.concat([
      decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return { ok: true, objectKey: key.toString('utf8') };
  } catch {
    // GCM authentication failure: a token signed with this secret but not produced by signObjectUrl.
    return invalid;
  }
}

// Secrets are random, shown once, and only their SHA-256 is kept. SHA-256 (not a slow hash) is right here:
// the inputs carry 256 bits of randomness, so there is nothing to brute-force, and lookups stay one index probe.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'tprm_';
export const ADMIN_TOKEN_PREFIX = 'tprm_admin_';
const API_KEY_PATTERN = /^tprm_([a-z0-9]{8})_([A-Za-z0-9_-]{43})$/;

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A new API key: `tprm_<8-char public prefix>_<43 chars of base64url = 256 random bits>`. */
export function generateApiKey(): { secret: string; prefix: string; hash: Buffer } {
  const prefix = randomBytes(5).toString('hex').slice(0, 8);
  const secret = `${API_KEY_PREFIX}${prefix}_${randomBytes(32).toString('base64url')}`;
  return { secret, prefix: `${API_KEY_PREFIX}${prefix}`, hash: sha256(secret) };
}

/** Whether a presented key has the shape of one of ours (malformed ones never reach the database). */
export function looksLikeApiKey(candidate: string): boolean {
  return API_KEY_PATTERN.test(candidate);
}

export function generateAdminToken(): string {
  return `${ADMIN_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

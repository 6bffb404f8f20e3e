// Secrets are random, shown once, and only their SHA-256 is kept. SHA-256 (not a slow hash) is right here:
// the inputs carry 256 bits of randomness, so there is nothing to brute-force, and lookups stay one index probe.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
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

/**
 * A new API key: `tprm_<8-char public prefix>_<43 chars of base64url = 256 random bits>`. `random` is for
 * documentation examples, which show a fixed key of the same form.
 */
export function generateApiKey(random: (size: number) => Buffer = randomBytes): {
  secret: string;
  prefix: string;
  hash: Buffer;
} {
  const prefix = random(5).toString('hex').slice(0, 8);
  const secret = `${API_KEY_PREFIX}${prefix}_${random(32).toString('base64url')}`;
  return { secret, prefix: `${API_KEY_PREFIX}${prefix}`, hash: sha256(secret) };
}

/** Whether a presented key has the shape of one of ours (malformed ones never reach the database). */
export function looksLikeApiKey(candidate: string): boolean {
  return API_KEY_PATTERN.test(candidate);
}

export function generateAdminToken(): string {
  return `${ADMIN_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * Why `token` may not be the admin token (decision P68), or null when it may. The rules stop typed-in and
 * patterned tokens without refusing random ones: 32 random hex characters pass, `aaaa…`, `abcd…`, `abab…X`
 * and `changeme-changeme-…` do not. Nothing short of a generator can prove randomness.
 */
export function adminTokenWeakness(token: string): string | null {
  if (token.length < 32) return `it has ${token.length} characters, at least 32 are required`;
  // Sent as a bearer credential, which is visible ASCII only (http/auth.ts): another one could never match.
  if (!/^[\x21-\x7e]+$/.test(token)) return 'it may hold visible ASCII characters only';
  if (new Set(token).size < 8) return 'it uses fewer than 8 different characters';
  for (let period = 1; period <= token.length / 2; period++)
    if (token.startsWith(token.slice(period))) return 'it repeats a shorter string';
  let steady = 0;
  for (let i = 2; i < token.length; i++) {
    const step = token.charCodeAt(i) - token.charCodeAt(i - 1);
    if (step === token.charCodeAt(i - 1) - token.charCodeAt(i - 2)) steady++;
  }
  if (steady * 2 > token.length - 2) return 'it is mostly a run of evenly spaced characters (aaaa, abcd)';
  return null;
}

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

/** Estimated randomness an admin token must carry once its patterns are discounted (decision P115). */
const ADMIN_TOKEN_MIN_BITS = 72;
const ADMIN_TOKEN_MIN_LENGTH = 32;

// The US keyboard: each key's row and horizontal position, the rows staggered as on the physical keyboard
// (Tab is 1.5 keys wide, Caps Lock 1.75, Shift 2.25), a shifted character on its key's position.
const KEYBOARD: readonly [plain: string, shifted: string, offset: number][] = [
  ['`1234567890-=', '~!@#$%^&*()_+', 0],
  ['qwertyuiop[]\\', 'QWERTYUIOP{}|', 1.5],
  ["asdfghjkl;'", 'ASDFGHJKL:"', 1.75],
  ['zxcvbnm,./', 'ZXCVBNM<>?', 2.25],
];
const KEY_POSITION = new Map<string, readonly [row: number, x: number]>(
  KEYBOARD.flatMap(([plain, shifted, offset], row) =>
    [...plain].flatMap((key, i) => [
      [key, [row, i + offset]] as const,
      [shifted[i] as string, [row, i + offset]] as const,
    ]),
  ),
);

/** The move from key `a` to key `b` on the keyboard, or null when either is not on it. */
function keyMove(a: string, b: string): string | null {
  const from = KEY_POSITION.get(a);
  const to = KEY_POSITION.get(b);
  return from && to ? `${to[0] - from[0]},${to[1] - from[1]}` : null;
}

function keysAdjacent(a: string, b: string): boolean {
  const from = KEY_POSITION.get(a);
  const to = KEY_POSITION.get(b);
  if (!from || !to) return false;
  const rows = Math.abs(to[0] - from[0]);
  const across = Math.abs(to[1] - from[1]);
  return rows === 0 ? across === 1 : rows === 1 && across <= 1;
}

/**
 * Bits of randomness `token` shows once what a guesser would try first is discounted (decision P115). A
 * character costs nothing when the characters before it predict it: it repeats the one before (`aaaa`), keeps
 * the step between the two before (`abcd`, `9753`), is the next key of a keyboard walk (`qwer`, `asdf`),
 * follows its predecessor as it did earlier in the token (`abcabc`, `k3Xqk3Xq`), or continues a change of
 * step (in code points or on the keyboard) seen earlier (`a1b2c3`, `1qaz2wsx`). Every other character counts
 * log2 of the alphabet its token's character classes span (26 lower-case letters, 26 upper-case, 10 digits,
 * 32 other visible characters). Words are not recognised: nothing short of a generator proves randomness.
 */
function estimatedTokenBits(token: string): number {
  let alphabet = 0;
  if (/[a-z]/.test(token)) alphabet += 26;
  if (/[A-Z]/.test(token)) alphabet += 26;
  if (/[0-9]/.test(token)) alphabet += 10;
  if (/[^A-Za-z0-9]/.test(token)) alphabet += 32;
  const seen = new Set<string>();
  let unpredicted = 0;
  for (let i = 0; i < token.length; i++) {
    const [before, previous, current] = [token[i - 2], token[i - 1], token[i] as string];
    const facts: string[] = [];
    let predicted = false;
    if (previous !== undefined) {
      const pair = `pair ${previous}${current}`;
      predicted ||= current === previous || seen.has(pair);
      facts.push(pair);
    }
    if (before !== undefined && previous !== undefined) {
      const step = token.charCodeAt(i) - token.charCodeAt(i - 1);
      const stepBefore = token.charCodeAt(i - 1) - token.charCodeAt(i - 2);
      const steps = `steps ${stepBefore},${step}`;
      predicted ||= step === stepBefore || seen.has(steps);
      facts.push(steps);
      const moves = [keyMove(before, previous), keyMove(previous, current)];
      if (moves[0] !== null && moves[1] !== null) {
        const walk = `keys ${moves[0]} ${moves[1]}`;
        predicted ||= (keysAdjacent(before, previous) && keysAdjacent(previous, current)) || seen.has(walk);
        facts.push(walk);
      }
    }
    for (const fact of facts) seen.add(fact);
    if (!predicted) unpredicted++;
  }
  return unpredicted * Math.log2(alphabet || 1);
}

/**
 * Why `token` may not be the admin token (decisions P68, P115), or null when it may: fewer than 32
 * characters, a character outside visible ASCII, or too little randomness once repeats, sequences and
 * keyboard walks are discounted. Random tokens pass (the generated one, `openssl rand -base64 32`, 32 random
 * hex characters, a UUID); `aaaa…`, `abcabc…X`, `aaaabbbb…`, `qwertyuiop…` and `1qaz2wsx…` do not.
 */
export function adminTokenWeakness(token: string): string | null {
  if (token.length < ADMIN_TOKEN_MIN_LENGTH)
    return `it has ${token.length} characters, at least ${ADMIN_TOKEN_MIN_LENGTH} are required`;
  // Sent as a bearer credential, which is visible ASCII only (http/auth.ts): another one could never match.
  if (!/^[\x21-\x7e]+$/.test(token)) return 'it may hold visible ASCII characters only';
  const bits = estimatedTokenBits(token);
  if (bits < ADMIN_TOKEN_MIN_BITS)
    return `it is patterned (repeats, sequences or keyboard walks): about ${Math.floor(bits)} bits of randomness, at least ${ADMIN_TOKEN_MIN_BITS} are required`;
  return null;
}

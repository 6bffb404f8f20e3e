// Hashing and the pseudo-random generator behind the seed data. Every constant here, and the order in which
// the builders draw, fixes the generated records byte for byte: tests and the benchmark data set rely on
// the same (seed, size) giving the same data, so none of them may change.

// MurmurHash3 (x86, 32-bit) constants: a well-studied mix with good avalanche, cheap in 32-bit integer math.
const MURMUR_C1 = 0xcc9e2d51;
const MURMUR_C2 = 0x1b873593;
const MURMUR_ROUND_MULTIPLIER = 5;
const MURMUR_ROUND_ADDEND = 0xe6546b64;
const MURMUR_FINAL_C1 = 0x85ebca6b;
const MURMUR_FINAL_C2 = 0xc2b2ae35;

/** 2^32 divided by the golden ratio: spreads consecutive unit indices far apart in the generator's state. */
const GOLDEN_RATIO_32 = 0x9e3779b9;
/** Outputs discarded after seeding (the usual sfc32 warm-up), so the first draws no longer echo the seed. */
const WARM_UP_DRAWS = 12;
const TWO_POW_32 = 2 ** 32;

// Salts give each use of the seed its own independent stream. A unit's shape (its plan) and its records
// come from different streams so that `countSeedRecords` can replay the plans alone, without drawing any
// record. The values are arbitrary; changing one changes all the data.
/** Stream of the plans: how many children of each kind a unit has. */
export const PLAN_STREAM_SALT = 0x51a7;
/** Stream of the records of a unit. */
export const BUILD_STREAM_SALT = 0xb11d;
/** One-off hash choosing, per seed, where the walk through the supplier name combinations starts. */
export const NAME_OFFSET_SALT = 0x0ff5e7;

/** One MurmurHash3 round: folds the 32-bit word `word` into the running hash `hash`. */
export const mixWord = (hash: number, word: number): number => {
  let scrambled = Math.imul(word, MURMUR_C1);
  scrambled = Math.imul((scrambled << 15) | (scrambled >>> 17), MURMUR_C2);
  const folded = hash ^ scrambled;
  return (Math.imul((folded << 13) | (folded >>> 19), MURMUR_ROUND_MULTIPLIER) + MURMUR_ROUND_ADDEND) | 0;
};

/** MurmurHash3 finalizer: an unsigned 32-bit value in which every input bit affects every output bit. */
export const finalizeHash = (hash: number): number => {
  let h = Math.imul(hash ^ (hash >>> 16), MURMUR_FINAL_C1);
  h = Math.imul(h ^ (h >>> 13), MURMUR_FINAL_C2);
  return (h ^ (h >>> 16)) >>> 0;
};

const BYTE_HEX = Array.from({ length: 256 }, (_, k) => k.toString(16).padStart(2, '0'));
/** The 8 lowercase hex digits of a 32-bit word. */
export const hex32 = (n: number): string =>
  (BYTE_HEX[n >>> 24] as string) + BYTE_HEX[(n >>> 16) & 255] + BYTE_HEX[(n >>> 8) & 255] + BYTE_HEX[n & 255];

/** sfc32 (Small Fast Counting generator), seeded from (seed, salt, index). */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private counter: number;
  constructor(seed: number, salt: number, index: number) {
    this.a = finalizeHash(mixWord(seed, salt));
    this.b = finalizeHash(mixWord(mixWord(seed, index), salt));
    this.c = finalizeHash(mixWord(index, GOLDEN_RATIO_32));
    this.counter = 1;
    for (let k = 0; k < WARM_UP_DRAWS; k++) this.u32();
  }
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.counter) | 0;
    this.counter = (this.counter + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (((this.c << 21) | (this.c >>> 11)) + t) | 0;
    return t >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / TWO_POW_32;
  }
  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(arr: readonly T[]): T {
    return arr[Math.floor(this.next() * arr.length)] as T;
  }
  /** k distinct elements, in random order. */
  sample<T>(arr: readonly T[], k: number): T[] {
    const copy = arr.slice();
    for (let j = 0; j < k; j++) {
      const r = j + Math.floor(this.next() * (copy.length - j));
      [copy[j], copy[r]] = [copy[r] as T, copy[j] as T];
    }
    return copy.slice(0, k);
  }
  /** Uniform in [from, to); `from` when the range is empty. */
  time(from: number, to: number): number {
    return to <= from ? from : from + (to - from) * this.next();
  }
  /** A whole amount between lo and hi, log-uniform (as many amounts in the thousands as in the millions). */
  money(lo: number, hi: number): number {
    return Math.round(lo * (hi / lo) ** this.next());
  }
  /** `words` random 32-bit words as hex. */
  hex(words: number): string {
    let s = '';
    for (let k = 0; k < words; k++) s += hex32(this.u32());
    return s;
  }
}

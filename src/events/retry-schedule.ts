// Durations for WEBHOOK_RETRY_DELAYS / WEBHOOK_TIMEOUT (management-api.md) and the retry schedule of
// decision 21: attempt 1 at once, then one retry after each delay; when the last attempt fails, exhausted.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

// Node's timers (setTimeout, AbortSignal.timeout) silently turn anything above 2^31-1 ms into 1 ms,
// which would make a typo like `9999h` retry immediately: refuse it instead (about 24.8 days).
const MAX_MS = 2 ** 31 - 1;

/** One duration such as `50ms`, `10s`, `5m`, `2h`, `5d` (decimals allowed, `1.5s`), in whole milliseconds. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!match) {
    throw new Error(
      `Invalid duration ${JSON.stringify(text)}: expected a non-negative number followed by a unit ms, s, m, h or d (e.g. 500ms, 10s, 5m, 2h, 5d)`,
    );
  }
  const ms = Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
  if (ms > MAX_MS) throw new Error(`Invalid duration ${JSON.stringify(text)}: longer than ${MAX_MS} ms`);
  return ms;
}

/** A comma list such as `1m,5m,30m,2h,6h` (spaces tolerated), in milliseconds. Throws on any bad item. */
export function parseDurationList(text: string): number[] {
  if (text.trim() === '')
    throw new Error('Invalid duration list: it is empty (expected e.g. 1m,5m,30m,2h,6h)');
  return text.split(',').map((item, i) => {
    if (item.trim() === '') {
      throw new Error(`Invalid duration list ${JSON.stringify(text)}: item ${i + 1} is empty`);
    }
    try {
      return parseDuration(item);
    } catch (err) {
      throw new Error(
        `Invalid duration list ${JSON.stringify(text)}, item ${i + 1}: ${(err as Error).message}`,
      );
    }
  });
}

/** 1 min, 5 min, 30 min, 2 h, 6 h (decision 21). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = Object.freeze(parseDurationList('1m,5m,30m,2h,6h'));

/** WEBHOOK_DISABLE_AFTER: five days of nothing but failures, as Svix does (P83). */
export const DEFAULT_DISABLE_AFTER_MS = parseDuration('5d');

/**
 * Delay in ms before attempt `attempt + 1`, after attempt `attempt` (1-based; 1 is the first try) failed;
 * null when no attempt is left, i.e. the delivery is exhausted. With the default five delays, attempts
 * 1..5 get a retry and a failed attempt 6 is final.
 */
export function nextRetryDelay(attempt: number, delays: readonly number[]): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError(`attempt must be an integer >= 1, got ${attempt}`);
  }
  return delays[attempt - 1] ?? null;
}

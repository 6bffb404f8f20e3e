// Single-valued request headers the service reads. Node keeps the first Content-Type of several and joins
// repeated unknown headers with ", " (two Idempotency-Keys would become one key "a, b"): either way the
// request means two things, so it is refused (decision P64). Authorization has its own rule (P46: 401).
import { invalidRequest } from './errors.js';

const SINGLE_VALUED = new Map([
  ['content-type', 'Content-Type'],
  ['idempotency-key', 'Idempotency-Key'],
]);

/** Throws 400 invalid_request naming the first single-valued header sent more than once. */
export function assertSingleValuedHeaders(rawHeaders: readonly string[]): void {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = SINGLE_VALUED.get((rawHeaders[i] as string).toLowerCase());
    if (name === undefined) continue;
    if (seen.has(name)) throw invalidRequest(`The ${name} header must be sent once.`, { header: name });
    seen.add(name);
  }
}

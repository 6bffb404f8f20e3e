// Pieces shared by the HTTP scenarios.
import { randomBytes } from 'node:crypto';
import { CursorCodec, cursorBinding } from '../../src/http/pagination.js';
import type { Queryable } from '../../src/storage/db.js';
import { serviceSecret } from '../../src/storage/settings.js';
import { type Medians, ratioCheck, type Side, type Verdict, withoutErrors } from '../scenario.js';

/**
 * Scenarios that need the big workspaces (deep cursors) cannot spread their load: ten workspaces take 600 req/s
 * and 6,000 req/min at most. They run at this fixed rate per workspace (two 10 s runs a minute fit the minute
 * budget) over one connection, and compare the latency of their two series, interleaved request by request:
 * what each request costs, without queueing behind others (autocannon sends a second's quota in a burst).
 */
export const FIXED_RATE_PER_WORKSPACE = 20;

/** The cursor tprm-api would have issued after the row with sort key `values`: same codec, same secret. */
export async function apiCursor(
  db: Queryable,
  workspaceId: string,
  operationId: string,
  values: readonly (string | number)[],
): Promise<string> {
  const codec = new CursorCodec(await serviceSecret(db, 'cursor_secret'));
  return codec.encode(cursorBinding(workspaceId, operationId, {}), values);
}

/** The baseline's naive cursor: the sort key in base64url JSON. */
export const baselineCursor = (values: readonly unknown[]) =>
  Buffer.from(JSON.stringify(values)).toString('base64url');

/** Unique per bench run, so that what a run writes never collides with an earlier run's leftovers. */
export const runNonce = () => randomBytes(4).toString('hex');

/** The usual judgement: tprm-api's req/s at least `ratio` times the baseline's, on the series `series`. */
export function throughputVersusBaseline(medians: Medians, series: string, ratio: number): Verdict {
  return withoutErrors(
    medians,
    ratioCheck('req/s', medians.api?.[series]?.reqPerSec, medians.baseline?.[series]?.reqPerSec, {
      atLeast: ratio,
    }),
  );
}

export const BOTH_SIDES: readonly Side[] = ['api', 'baseline'];

// Pieces shared by the HTTP scenarios.
import { randomBytes } from 'node:crypto';
import { CursorCodec, cursorBinding } from '../../src/http/pagination.js';
import type { Queryable } from '../../src/storage/db.js';
import { serviceSecret } from '../../src/storage/settings.js';
import type { Dataset } from '../dataset.js';
import { runLoad } from '../load.js';
import {
  type Medians,
  ratioCheck,
  type Scenario,
  type Side,
  type Verdict,
  withoutErrors,
} from '../scenario.js';
import type { ServerKind } from '../servers.js';

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

/**
 * Removes the audit entries a write scenario left in these workspaces, and sets their chains' heads (P99) back
 * to empty, so a later run starts new chains rather than broken ones.
 */
export async function clearAuditTrails(db: Queryable | null, workspaceIds: readonly string[]): Promise<void> {
  await db?.query('delete from audit_logs where workspace_id = any($1::uuid[])', [workspaceIds]);
  await db?.query(
    `update audit_heads set occurred_at = '-infinity', hash = null, previous_hash = null
      where workspace_id = any($1::uuid[])`,
    [workspaceIds],
  );
}

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

/**
 * A scenario comparing, in the big workspaces, the first page of a list with the page a stored cursor resumes
 * at, the two interleaved request by request in one run (keyset pagination must make depth free).
 */
export function resumedPageScenario(spec: {
  name: string;
  title: string;
  target: string;
  /** The list path, without query. */
  path: string;
  operationId: string;
  first: string;
  resumed: string;
  /** How the table names the resumed/first p50 ratio. */
  ratioLabel: string;
  /** The sort key (`k0`, `k1`) of the row the cursor comes after, in one workspace; the error names a miss. */
  cursorRow: (db: Queryable, workspaceId: string, dataset: Dataset) => Promise<{ k0: string; k1: string }>;
}): Scenario {
  // Cursors are opaque and each server's own: a tprm-api build (either side under --against) reads the API's.
  const cursors = new Map<string, Record<ServerKind, string>>();
  return {
    name: spec.name,
    title: spec.title,
    target: spec.target,
    stores: ['postgres', 'embedded'],
    sides: BOTH_SIDES,
    async prepare(dataset, db) {
      for (const workspace of dataset.big) {
        const row = await spec.cursorRow(db, workspace.id, dataset);
        cursors.set(workspace.id, {
          'tprm-api': await apiCursor(db, workspace.id, spec.operationId, [row.k0, row.k1]),
          bare: baselineCursor([row.k0, row.k1]),
        });
      }
    },
    async run(env, side) {
      return runLoad(env, side, {
        label: spec.name,
        series: [spec.first, spec.resumed],
        workspaces: env.dataset.big,
        expectStatus: 200,
        rate: FIXED_RATE_PER_WORKSPACE * env.dataset.big.length,
        connections: 1,
        request: (workspace, _n, series) => {
          const cursor = encodeURIComponent(cursors.get(workspace.id)?.[env.servers[side].kind] ?? '');
          return {
            method: 'GET',
            path: `/v1${spec.path}?limit=50${series === spec.resumed ? `&cursor=${cursor}` : ''}`,
          };
        },
      });
    },
    judge(medians) {
      const [resumed, first] = [medians.api?.[spec.resumed]?.p50Ms, medians.api?.[spec.first]?.p50Ms];
      return withoutErrors(medians, ratioCheck(spec.ratioLabel, resumed, first, { atMost: 1.1 }));
    },
  };
}

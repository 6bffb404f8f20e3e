// GET /audit-logs resuming from a stored cursor near the end of 100,000 entries per workspace (1M in all),
// against the earliest page, the two interleaved request by request in one run: a SIEM's resumed poll must cost
// what its first one did.
import { runLoad } from '../load.js';
import { ratioCheck, type Scenario, withoutErrors } from '../scenario.js';
import { apiCursor, BOTH_SIDES, baselineCursor, FIXED_RATE_PER_WORKSPACE } from './common.js';

/** The stored cursor sits this many entries before the end, so the resumed page is a full one. */
const FROM_END = 1000;
const EARLY = 'earliest page (interleaved)';
const RESUMED = 'resumed near the end (interleaved)';
const cursors = new Map<string, { api: string; baseline: string }>();

export const auditResume: Scenario = {
  name: 'audit-resume',
  title: 'GET /audit-logs from a stored cursor near the end of 1M entries, against the earliest page',
  target: 'within 10 % of an early page (p50 latency, interleaved)',
  stores: ['postgres', 'embedded'],
  sides: BOTH_SIDES,
  async prepare(dataset, db) {
    for (const workspace of dataset.big) {
      const [row] = await db.query<{ k0: string; k1: string }>(
        `select iso(occurred_at) as k0, id as k1 from audit_logs where workspace_id = $1
          order by occurred_at desc, id desc offset $2 limit 1`,
        [workspace.id, FROM_END],
      );
      if (!row) throw new Error(`workspace ${workspace.name} has fewer than ${FROM_END} audit entries`);
      cursors.set(workspace.id, {
        api: await apiCursor(db, workspace.id, 'listAuditLogs', [row.k0, row.k1]),
        baseline: baselineCursor([row.k0, row.k1]),
      });
    }
  },
  async run(env, side) {
    return runLoad(env, side, {
      label: 'audit-resume',
      series: [EARLY, RESUMED],
      workspaces: env.dataset.big,
      expectStatus: 200,
      rate: FIXED_RATE_PER_WORKSPACE * env.dataset.big.length,
      connections: 1,
      request: (workspace, _n, series) => {
        const cursor = encodeURIComponent(cursors.get(workspace.id)?.[side] ?? '');
        return {
          method: 'GET',
          path: `/v1/audit-logs?limit=50${series === RESUMED ? `&cursor=${cursor}` : ''}`,
        };
      },
    });
  },
  judge(medians) {
    return withoutErrors(
      medians,
      ratioCheck('resumed/early p50', medians.api?.[RESUMED]?.p50Ms, medians.api?.[EARLY]?.p50Ms, {
        atMost: 1.1,
      }),
    );
  },
};

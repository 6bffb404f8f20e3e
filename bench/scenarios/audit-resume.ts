// GET /audit-logs resuming from a stored cursor near the end of 100,000 entries per workspace (1M in all),
// against the earliest page, the two interleaved request by request in one run: a SIEM's resumed poll must cost
// what its first one did.
import { resumedPageScenario } from './common.js';

/** The stored cursor sits this many entries before the end, so the resumed page is a full one. */
const FROM_END = 1000;

export const auditResume = resumedPageScenario({
  name: 'audit-resume',
  title: 'GET /audit-logs from a stored cursor near the end of 1M entries, against the earliest page',
  target: 'within 10 % of an early page (p50 latency, interleaved)',
  path: '/audit-logs',
  operationId: 'listAuditLogs',
  first: 'earliest page (interleaved)',
  resumed: 'resumed near the end (interleaved)',
  ratioLabel: 'resumed/early p50',
  async cursorRow(db, workspaceId) {
    const [row] = await db.query<{ k0: string; k1: string }>(
      `select iso(occurred_at) as k0, id as k1 from audit_logs where workspace_id = $1
        order by occurred_at desc, id desc offset $2 limit 1`,
      [workspaceId, FROM_END],
    );
    if (!row) throw new Error(`workspace ${workspaceId} has fewer than ${FROM_END} audit entries`);
    return row;
  },
});

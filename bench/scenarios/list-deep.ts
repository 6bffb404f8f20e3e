// GET /suppliers?limit=50 90,000 rows deep through a cursor, against the first page of the same workspaces,
// the two interleaved request by request in one run: keyset pagination must make depth free.
import { resumedPageScenario } from './common.js';

const DEPTH = 90_000;

export const listDeep = resumedPageScenario({
  name: 'list-deep',
  title: 'GET /suppliers?limit=50, 90,000 rows deep, against the first page',
  target: 'within 10 % of the first page (p50 latency, interleaved)',
  path: '/suppliers',
  operationId: 'listSuppliers',
  first: 'first page (interleaved)',
  resumed: 'page 90,000 rows deep (interleaved)',
  ratioLabel: 'deep/first p50',
  // The cursor after the row at DEPTH (or 90 % of the rows at small scales).
  async cursorRow(db, workspaceId, dataset) {
    const perWorkspace = Math.floor(dataset.spec.suppliers / dataset.spec.bigWorkspaces);
    const depth = Math.min(DEPTH, Math.floor(perWorkspace * 0.9));
    const [row] = await db.query<{ k0: string; k1: string }>(
      `select iso(created_at) as k0, id as k1 from suppliers where workspace_id = $1
        order by created_at desc, id desc offset $2 limit 1`,
      [workspaceId, depth - 1],
    );
    if (!row) throw new Error(`workspace ${workspaceId} has fewer than ${depth} suppliers`);
    return row;
  },
});

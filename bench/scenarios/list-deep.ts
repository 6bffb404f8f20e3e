// GET /suppliers?limit=50 90,000 rows deep through a cursor, against the first page of the same workspaces,
// the two interleaved request by request in one run: keyset pagination must make depth free.
import { runLoad } from '../load.js';
import { ratioCheck, type Scenario, withoutErrors } from '../scenario.js';
import { apiCursor, BOTH_SIDES, baselineCursor, FIXED_RATE_PER_WORKSPACE } from './common.js';

const DEPTH = 90_000;
const FIRST = 'first page (interleaved)';
const DEEP = 'page 90,000 rows deep (interleaved)';
/** Per big workspace: the cursor of each side, after the row at DEPTH (or 90 % of the rows at small scales). */
const cursors = new Map<string, { api: string; baseline: string }>();

export const listDeep: Scenario = {
  name: 'list-deep',
  title: 'GET /suppliers?limit=50, 90,000 rows deep, against the first page',
  target: 'within 10 % of the first page (p50 latency, interleaved)',
  stores: ['postgres', 'embedded'],
  sides: BOTH_SIDES,
  async prepare(dataset, db) {
    const perWorkspace = Math.floor(dataset.spec.suppliers / dataset.spec.bigWorkspaces);
    const depth = Math.min(DEPTH, Math.floor(perWorkspace * 0.9));
    for (const workspace of dataset.big) {
      const [row] = await db.query<{ k0: string; k1: string; at: string }>(
        `select iso(created_at) as k0, id as k1 from suppliers where workspace_id = $1
          order by created_at desc, id desc offset $2 limit 1`,
        [workspace.id, depth - 1],
      );
      if (!row) throw new Error(`workspace ${workspace.name} has fewer than ${depth} suppliers`);
      cursors.set(workspace.id, {
        api: await apiCursor(db, workspace.id, 'listSuppliers', [row.k0, row.k1]),
        baseline: baselineCursor([row.k0, row.k1]),
      });
    }
  },
  async run(env, side) {
    return runLoad(env, side, {
      label: 'list-deep',
      series: [FIRST, DEEP],
      workspaces: env.dataset.big,
      expectStatus: 200,
      rate: FIXED_RATE_PER_WORKSPACE * env.dataset.big.length,
      connections: 1,
      request: (workspace, _n, series) => {
        const cursor = encodeURIComponent(cursors.get(workspace.id)?.[side] ?? '');
        return { method: 'GET', path: `/v1/suppliers?limit=50${series === DEEP ? `&cursor=${cursor}` : ''}` };
      },
    });
  },
  judge(medians) {
    return withoutErrors(
      medians,
      ratioCheck('deep/first p50', medians.api?.[DEEP]?.p50Ms, medians.api?.[FIRST]?.p50Ms, { atMost: 1.1 }),
    );
  },
};

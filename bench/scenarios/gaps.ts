// GET /assessments/{id}/gaps: 300 gaps with their evidence in one response.
import { runLoad } from '../load.js';
import type { Scenario } from '../scenario.js';
import { BOTH_SIDES, throughputVersusBaseline } from './common.js';

const assessments = new Map<string, string>();

export const gaps: Scenario = {
  name: 'gaps',
  title: 'GET /assessments/{id}/gaps (300 gaps, with evidence)',
  target: '>= 0.8x baseline req/s',
  stores: ['postgres', 'embedded'],
  sides: BOTH_SIDES,
  async prepare(dataset, db) {
    const rows = await db.query<{ workspace_id: string; id: string }>(
      'select workspace_id, id from assessments where workspace_id = any($1::uuid[])',
      [dataset.small.map((w) => w.id)],
    );
    for (const row of rows) assessments.set(row.workspace_id, row.id);
  },
  async run(env, side) {
    return runLoad(env, side, {
      label: 'gaps',
      series: ['gaps'],
      workspaces: env.dataset.small,
      expectStatus: 200,
      request: (workspace) => ({
        method: 'GET',
        path: `/v1/assessments/${assessments.get(workspace.id)}/gaps`,
      }),
    });
  },
  judge: (medians) => throughputVersusBaseline(medians, 'gaps', 0.8),
};

// GET /suppliers/{id} (with its assessment count), ids spread over the small workspaces.
import { runLoad } from '../load.js';
import type { Scenario } from '../scenario.js';
import { BOTH_SIDES, throughputVersusBaseline } from './common.js';

const ids = new Map<string, string[]>();

export const getSupplier: Scenario = {
  name: 'get-supplier',
  title: 'GET /suppliers/{id}',
  target: '>= 0.9x baseline req/s',
  stores: ['postgres', 'embedded'],
  sides: BOTH_SIDES,
  async prepare(dataset, db) {
    const rows = await db.query<{ workspace_id: string; ids: string[] }>(
      `select workspace_id, array_agg(id order by id) as ids from suppliers where workspace_id = any($1::uuid[])
        group by workspace_id`,
      [dataset.small.map((w) => w.id)],
    );
    for (const row of rows) ids.set(row.workspace_id, row.ids);
  },
  async run(env, side) {
    return runLoad(env, side, {
      label: 'get-supplier',
      series: ['supplier'],
      workspaces: env.dataset.small,
      expectStatus: 200,
      request: (workspace, n) => {
        const list = ids.get(workspace.id) ?? [];
        return {
          method: 'GET',
          path: `/v1/suppliers/${list[Math.floor(n / env.dataset.small.length) % list.length]}`,
        };
      },
    });
  },
  judge: (medians) => throughputVersusBaseline(medians, 'supplier', 0.9),
};

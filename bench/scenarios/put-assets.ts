// PUT /assets with 500 items: 250 assets the workspace has, each with a changed name, and 250 new ones. The
// baseline upserts the same batch in one statement. What a run creates is deleted after it.
import { ASSETS_PER_WORKSPACE } from '../dataset.js';
import { runLoad } from '../load.js';
import type { Scenario } from '../scenario.js';
import { BOTH_SIDES, clearAuditTrails, runNonce, throughputVersusBaseline } from './common.js';

interface Item {
  external_id: string;
  name: string;
  asset_type: string;
  technical_criticality: string | null;
  exposure: string | null;
  region: string | null;
  cloud_metadata: Record<string, unknown>;
}

const inventories = new Map<string, Item[]>();
const NEW_PREFIX = 'bench-new-';

export const putAssets: Scenario = {
  name: 'put-assets',
  title: 'PUT /assets, 500 items (250 changed, 250 new)',
  target: ">= 0.7x the baseline's single-statement upsert",
  stores: ['postgres', 'embedded'],
  sides: BOTH_SIDES,
  async prepare(dataset, db) {
    const rows = await db.query<Item & { workspace_id: string }>(
      `select workspace_id, external_id, name, asset_type, technical_criticality, exposure, region, cloud_metadata
         from assets where workspace_id = any($1::uuid[]) and source = 'cloud' and cloud_provider = 'aws'
          and external_id not like '${NEW_PREFIX}%'
        order by workspace_id, external_id`,
      [dataset.withAssets.map((w) => w.id)],
    );
    for (const { workspace_id, ...item } of rows) {
      const list = inventories.get(workspace_id) ?? [];
      list.push(item);
      inventories.set(workspace_id, list);
    }
  },
  async run(env, side) {
    const nonce = runNonce();
    const half = ASSETS_PER_WORKSPACE;
    return runLoad(env, side, {
      label: 'put-assets',
      series: ['batch'],
      workspaces: env.dataset.withAssets,
      expectStatus: 200,
      request: (workspace, n) => {
        const known = inventories.get(workspace.id) ?? [];
        const changed = known
          .slice(0, half)
          .map((item) => ({ ...item, name: `${item.name.split('~')[0]}~${nonce}-${n}` }));
        const created = known.slice(0, half).map((item, i) => ({
          ...item,
          external_id: `${NEW_PREFIX}${nonce}-${n}-${i}`,
          name: `new-${item.name}`,
        }));
        return {
          method: 'PUT',
          path: '/v1/assets',
          body: JSON.stringify({ source: 'cloud', cloud_provider: 'aws', assets: [...changed, ...created] }),
        };
      },
    });
  },
  async cleanup(env) {
    const ids = env.dataset.withAssets.map((w) => w.id);
    await env.db?.query(
      `delete from assets where workspace_id = any($1::uuid[]) and external_id like '${NEW_PREFIX}%'`,
      [ids],
    );
    await clearAuditTrails(env.db, ids);
  },
  judge: (medians) => throughputVersusBaseline(medians, 'batch', 0.7),
};

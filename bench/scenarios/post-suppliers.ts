// POST /suppliers with an Idempotency-Key (a new key per request), against the baseline's plain insert. What a
// run creates is deleted after it.
import { runLoad } from '../load.js';
import type { Scenario } from '../scenario.js';
import { BOTH_SIDES, clearAuditTrails, runNonce, throughputVersusBaseline } from './common.js';

const DOMAIN_PREFIX = 'bench-post-';

export const postSuppliers: Scenario = {
  name: 'post-suppliers',
  title: 'POST /suppliers with Idempotency-Key',
  target: '>= 0.7x baseline insert req/s',
  stores: ['postgres', 'embedded'],
  sides: BOTH_SIDES,
  async run(env, side) {
    const nonce = runNonce();
    return runLoad(env, side, {
      label: 'post-suppliers',
      series: ['create'],
      workspaces: env.dataset.small,
      expectStatus: 201,
      request: (_workspace, n) => ({
        method: 'POST',
        path: '/v1/suppliers',
        headers: { 'idempotency-key': `bench-${nonce}-${n}` },
        body: JSON.stringify({
          name: `Bench Supplier ${nonce}-${n}`,
          domain: `${DOMAIN_PREFIX}${nonce}-${n}.example`,
          industry: 'Technology',
          country: 'US',
          criticality: 'medium',
          tags: ['soc2', 'cloud'],
        }),
      }),
    });
  },
  async cleanup(env) {
    const ids = env.dataset.small.map((w) => w.id);
    await env.db?.query(
      `delete from suppliers where workspace_id = any($1::uuid[]) and domain like '${DOMAIN_PREFIX}%'`,
      [ids],
    );
    await env.db?.query('delete from idempotency_keys where workspace_id = any($1::uuid[])', [ids]);
    await clearAuditTrails(env.db, ids);
  },
  judge: (medians) => throughputVersusBaseline(medians, 'create', 0.7),
};

// GET /suppliers?limit=50, first page, key with every scope; memory under this load too.
import { runLoad } from '../load.js';
import { allOf, belowCheck, ratioCheck, type Scenario, withoutErrors } from '../scenario.js';
import { BOTH_SIDES } from './common.js';

export const listFirst: Scenario = {
  name: 'list-first',
  title: 'GET /suppliers?limit=50, first page',
  // Issue 27 sets PostgreSQL's; the embedded store keeps the earlier target (its bare server is PGlite's).
  target:
    'PostgreSQL: >= 1.5x baseline req/s, p99 <= 1.0x baseline; embedded: >= 0.9x baseline req/s, p99 <= 1.3x baseline; RSS < 250 MB',
  stores: ['postgres', 'embedded'],
  sides: BOTH_SIDES,
  async run(env, side) {
    return runLoad(env, side, {
      label: 'list-first',
      series: ['first page'],
      workspaces: env.dataset.small,
      expectStatus: 200,
      request: () => ({ method: 'GET', path: '/v1/suppliers?limit=50' }),
    });
  },
  judge(medians, store) {
    const api = medians.api?.['first page'];
    const baseline = medians.baseline?.['first page'];
    const server = store === 'postgres';
    return withoutErrors(
      medians,
      allOf(
        ratioCheck('req/s', api?.reqPerSec, baseline?.reqPerSec, { atLeast: server ? 1.5 : 0.9 }),
        ratioCheck('p99', api?.p99Ms, baseline?.p99Ms, { atMost: server ? 1.0 : 1.3 }),
        belowCheck('RSS', api?.rssMb, 250, 'MB'),
      ),
    );
  },
};

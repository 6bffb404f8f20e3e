// GET /events's first page against GET /audit-logs's, the two interleaved request by request in one run, in the
// big workspaces (issue 26 "Speed": the events feed's first page is as fast as the audit feed's, within 10 %).
// The events are made once from the audit entries: as many per workspace, with the same instants, each with a
// thin payload of a catalogued type (docs/decisions.md P176).

import { runLoad } from '../load.js';
import type { Scenario } from '../scenario.js';
import { ratioCheck, withoutErrors } from '../scenario.js';
import { FIXED_RATE_PER_WORKSPACE } from './common.js';

const AUDIT = 'GET /audit-logs first page (interleaved)';
const EVENTS = 'GET /events first page (interleaved)';

export const eventsFeed: Scenario = {
  name: 'events-feed',
  title: 'GET /events first page against GET /audit-logs first page, as many rows each',
  target: 'within 10 % of the audit feed (p50 latency, interleaved)',
  stores: ['postgres', 'embedded'],
  // The bare baseline has no event log: the comparison is tprm-api's two feeds.
  sides: ['api'],
  async prepare(dataset, db) {
    // Idempotent: a dataset kept between runs already holds them.
    await db.query(
      `insert into events (workspace_id, id, type, occurred_at, payload)
       select a.workspace_id, a.id, 'alert.created', a.occurred_at,
              '{"event_id":"' || a.id || '","type":"alert.created","occurred_at":"' || iso(a.occurred_at) ||
              '","organization_id":"' || a.workspace_id || '","data":{"alert_id":"' || gen_random_uuid() ||
              '","scope":"org","supplier_id":null,"severity":"high"}}'
         from audit_logs a
        where a.workspace_id = any ($1::uuid[])
       on conflict do nothing`,
      [dataset.big.map((workspace) => workspace.id)],
    );
    await db.query('analyze events');
  },
  async run(env, side) {
    return runLoad(env, side, {
      label: 'events-feed',
      series: [AUDIT, EVENTS],
      workspaces: env.dataset.big,
      expectStatus: 200,
      rate: FIXED_RATE_PER_WORKSPACE * env.dataset.big.length,
      connections: 1,
      request: (_workspace, _n, series) => ({
        method: 'GET',
        path: `/v1/${series === EVENTS ? 'events' : 'audit-logs'}?limit=50`,
      }),
    });
  },
  judge(medians) {
    const [events, audit] = [medians.api?.[EVENTS]?.p50Ms, medians.api?.[AUDIT]?.p50Ms];
    return withoutErrors(medians, ratioCheck('events/audit p50', events, audit, { atMost: 1.1 }));
  },
};

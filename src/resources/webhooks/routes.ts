// The handlers of the webhooks' read operations (operations.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { handleList, NEWEST_FIRST } from '../../http/list.js';
import type { Route } from '../../http/route.js';
import { type EventItem, ocsfContext, webhookEventToOcsf } from '../../ocsf/index.js';
import { listEvents, listWebhookDeliveries, listWebhookEndpoints } from './operations.js';

export const webhooksRoutes: Route[] = [
  handleList(listWebhookEndpoints, { order: NEWEST_FIRST }),
  handleList(listWebhookDeliveries, {
    // decision 12 (P74): the specification states no order for attempts.
    order: NEWEST_FIRST,
    where: { from: 't.attempted_at >= ?::timestamptz' },
  }),
  // P172: a feed like /audit-logs (oldest first, a cursor on every page that served an event), over the
  // view of the stored events without the test events; `type` compares the stored column.
  handleList(listEvents, {
    order: { column: 'occurred_at', direction: 'asc' },
    where: { from: 't.occurred_at >= ?::timestamptz', to: 't.occurred_at <= ?::timestamptz' },
    // P185: `format=ocsf` writes each event, as served, as an OCSF 1.8.0 event (docs/ocsf.md).
    ocsf: (item, workspaceId) => webhookEventToOcsf(item as EventItem, ocsfContext(workspaceId)),
  }),
];

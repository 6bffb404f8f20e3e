// The handlers of the webhooks' read operations (operations.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { handleList, NEWEST_FIRST } from '../../http/list.js';
import type { Route } from '../../http/route.js';
import { listWebhookDeliveries, listWebhookEndpoints } from './operations.js';

export const webhooksRoutes: Route[] = [
  handleList(listWebhookEndpoints, { order: NEWEST_FIRST }),
  handleList(listWebhookDeliveries, {
    // decision 12 (P74): the specification states no order for attempts.
    order: NEWEST_FIRST,
    where: { from: 't.attempted_at >= ?::timestamptz' },
  }),
];

// The handler of the audit trail's feed (operations.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { handleList } from '../../http/list.js';
import type { Route } from '../../http/route.js';
import { type AuditItem, auditEntryToOcsf, ocsfContext } from '../../ocsf/index.js';
import { listAuditLogs } from './operations.js';

export const auditLogsRoutes: Route[] = [
  handleList(listAuditLogs, {
    // decision 12: oldest first, because the log is polled; ties on id ascending (decision 38).
    order: { column: 'occurred_at', direction: 'asc' },
    where: {
      from: 't.occurred_at >= ?::timestamptz',
      to: 't.occurred_at <= ?::timestamptz',
      action: 't.action = ?',
      actor_id: 't.actor_id = ?::uuid',
    },
    // P185: `format=ocsf` writes each entry, as served, as an OCSF 1.8.0 event (docs/ocsf.md).
    ocsf: (item, workspaceId) => auditEntryToOcsf(item as AuditItem, ocsfContext(workspaceId)),
  }),
];

// GET /audit-logs (risk-data-api.md "Audit"; decisions 12, 13, 14, 38): a feed for SIEM ingestion, oldest
// first by occurred_at then id. Unlike other collections, `next_cursor` is returned on every page that has an
// entry, also the last one, so a poller stores it and later resumes with only the newer entries; an empty
// page echoes the cursor it was given (null when none was given). The contract (handler: routes.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { listOperation } from '../../contract/list.js';
import { Uuid } from '../../schema/fields.js';
import { AuditLog } from './schema.js';

const instant = (description: string) => Type.String({ format: 'date-time', description });

export const listAuditLogs = listOperation({
  id: 'listAuditLogs',
  path: '/audit-logs',
  scope: 'audit:read',
  tag: 'Audit',
  summary: 'Read the audit trail, oldest first (a resumable feed)',
  description:
    'Oldest first by `occurred_at`, then `id`. `from` and `to` bound `occurred_at` inclusively; `action` ' +
    'matches the event type exactly. `meta.next_cursor` is set on every page with at least one entry, also ' +
    'when `has_more` is false: store it and pass it later to receive only newer entries. An empty page ' +
    'returns the cursor that was sent (null when none was sent). `format=ocsf` gives each entry as an OCSF ' +
    '1.8.0 event (API Activity or Entity Management, docs/ocsf.md), with the same envelope and cursors.',
  feed: true,
  ocsf: true,
  resource: AuditLog,
  filters: {
    // Both bounds are inclusive.
    from: instant('Entries with occurred_at at or after this instant (inclusive).'),
    to: instant('Entries with occurred_at at or before this instant (inclusive).'),
    action: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Exact event type, e.g. supplier.created.',
    }),
    actor_id: Uuid,
  },
});

export const auditLogsOperations = [listAuditLogs];

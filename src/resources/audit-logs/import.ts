// Import collections of this area (management-api.md "Import document"): audit_logs, appended to the chain.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { ImportCollection } from '../../storage/import-collection.js';
import { AuditLog } from './schema.js';

export const auditLogsImports: readonly ImportCollection[] = [
  {
    name: 'audit_logs',
    resource: AuditLog,
    defaults: { metadata: {} },
    // The chain is the service's own: sent hashes are ignored, and the entries are appended after the trail's
    // last one, never among the entries already chained (P102). One without occurred_at is stamped as appended.
    ignore: ['hash', 'previous_hash'],
    async write(unit, rows, fail) {
      const appended = await unit.importAudit(rows);
      if (!('refused' in appended)) return { audit_chain: appended };
      const last = appended.last_occurred_at
        ? `occurred_at ${appended.last_occurred_at}, id ${appended.last_id ?? '(missing)'}`
        : 'none';
      for (const index of appended.refused)
        fail(
          `audit_logs[${index}].occurred_at`,
          `must come after the last entry of the workspace's audit trail in feed order (${last}): an import ` +
            'appends to the trail and never rewrites it; leave occurred_at out to stamp the entry as it is appended',
        );
      return {};
    },
  },
];

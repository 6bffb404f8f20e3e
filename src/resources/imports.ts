// The collections of the Import document, in dependency order (parents first).
import { registerImportCollection } from '../management/import.js';
import { appendImportedAudit } from '../storage/audit.js';
import { registerActionPlansImports } from './action-plans/import.js';
import { registerAlertsImports } from './alerts/import.js';
import { registerAssessmentsImports } from './assessments/import.js';
import { Assessment } from './assessments/schema.js';
import { registerAssetsImports } from './assets/import.js';
import { AuditLog } from './audit-logs/schema.js';
import { registerContextImports } from './context/import.js';
import { registerReportsImports } from './reports/import.js';
import { registerRisksImports } from './risks/import.js';
import { Supplier } from './suppliers/schema.js';

registerImportCollection({
  name: 'suppliers',
  resource: Supplier,
  unique: [['domain']],
  ignore: ['assessment_count'],
  defaults: { status: 'active', tags: [], source: 'import', contacts: [] },
  normalize(record) {
    if (typeof record.domain === 'string') record.domain = record.domain.toLowerCase();
  },
});

// Gaps and the assessment collections' own extras come from the assessments area.
registerImportCollection({
  name: 'assessments',
  resource: Assessment,
  refs: { supplier_id: 'suppliers' },
  internalColumns: ['completion_emitted_at'],
  // An assessment imported as completed has already completed: it never emits assessment.completed.
  normalize(record) {
    if (record.status === 'completed')
      record.completion_emitted_at = record.completed_at ?? new Date().toISOString();
  },
});
registerAssessmentsImports();

registerReportsImports();
registerAssetsImports();
registerContextImports();
registerRisksImports();
registerActionPlansImports();
registerAlertsImports();

registerImportCollection({
  name: 'audit_logs',
  resource: AuditLog,
  defaults: { metadata: {} },
  // The chain is the service's own: sent hashes are ignored, and the entries are appended after the trail's
  // last one, never among the entries already chained (P102). One without occurred_at is stamped as appended.
  ignore: ['hash', 'previous_hash'],
  async write(tx, workspaceId, rows, fail) {
    const appended = await appendImportedAudit(tx, workspaceId, rows);
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
});

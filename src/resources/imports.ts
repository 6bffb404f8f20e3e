// The collections of the Import document, in dependency order (parents first).
import { registerImportCollection } from '../management/import.js';
import { rechainAudit } from '../storage/audit.js';
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
  // The chain is the service's own: an imported entry is chained among the stored ones in feed order (P98).
  ignore: ['hash', 'previous_hash'],
  normalize(record) {
    record.occurred_at ??= record.created_at;
  },
  afterInsert: (tx, workspaceId, rows) =>
    rechainAudit(
      tx,
      workspaceId,
      rows.map((row) => row.occurred_at as string),
    ),
});

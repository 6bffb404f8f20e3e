// Import collections of this area (management-api.md "Import document"), parents first.
import type { ImportCollection } from '../../storage/import-collection.js';
import { Assessment, Gap } from './schema.js';

export const assessmentsImports: readonly ImportCollection[] = [
  {
    name: 'assessments',
    resource: Assessment,
    refs: { supplier_id: 'suppliers' },
    internalColumns: ['completion_emitted_at'],
    // An assessment imported as completed has already completed: it never emits assessment.completed.
    normalize(record) {
      if (record.status === 'completed')
        record.completion_emitted_at = record.completed_at ?? new Date().toISOString();
    },
  },
  {
    name: 'gaps',
    resource: Gap,
    refs: { assessment_id: 'assessments' },
    // One gap per control of an assessment (also a table constraint).
    unique: [['assessment_id', 'control_code']],
    defaults: { evidence_status: 'missing', evidence: [] },
  },
];

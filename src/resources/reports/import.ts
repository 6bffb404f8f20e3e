// Import collections of this area (management-api.md "Import document"), parents first.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { ImportCollection } from '../../storage/import-collection.js';
import { Report } from './schema.js';

export const reportsImports: readonly ImportCollection[] = [
  {
    name: 'reports',
    resource: Report,
    refs: { supplier_id: 'suppliers', assessment_id: 'assessments' },
    defaults: { narrative: '', assessment_id: null },
    // `pdf_status` is computed (decision 42) and the PDF location is no field: imported reports are pending.
    normalize(record) {
      record.generated_at ??= record.created_at;
    },
  },
];

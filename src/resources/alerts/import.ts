// Import collections of this area (management-api.md "Import document"): alerts (supplier_id → suppliers)
// and insights.
import type { ImportCollection } from '../../storage/import-collection.js';
import { Alert, alertScopeProblem, Insight } from './schema.js';

export const alertsImports: readonly ImportCollection[] = [
  {
    name: 'alerts',
    resource: Alert,
    refs: { supplier_id: 'suppliers' },
    // The scope/supplier_id rule spans two fields, which the per-field record schema cannot express.
    check(record) {
      const problem = alertScopeProblem(record.scope, record.supplier_id);
      return problem ? { supplier_id: problem } : null;
    },
  },
  { name: 'insights', resource: Insight },
];

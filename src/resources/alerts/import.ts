// Import collections of this area (management-api.md "Import document"): alerts (supplier_id → suppliers)
// and insights.
import { validationFailed } from '../../http/errors.js';
import { registerImportCollection } from '../../management/import.js';
import { Alert, alertScopeProblem, Insight } from './schema.js';

export function registerAlertsImports(): void {
  registerImportCollection({
    name: 'alerts',
    resource: Alert,
    refs: { supplier_id: 'suppliers' },
    normalize(record) {
      // The scope/supplier_id rule spans two fields, which the per-field record schema cannot express. A
      // broken record fails the whole import with 422 (not the database check's 500); normalize does not know
      // the record's index, so the path names the record by its id.
      const problem = alertScopeProblem(record.scope, record.supplier_id);
      if (problem) throw validationFailed({ [`alerts[id=${record.id}].supplier_id`]: problem });
    },
  });
  registerImportCollection({ name: 'insights', resource: Insight });
}

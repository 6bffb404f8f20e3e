// Import collections of this area (management-api.md "Import document"), parents first. `assessments` itself
// is registered by resources/imports.ts just before this runs.
import { registerImportCollection } from '../../management/import.js';
import { Gap } from './schema.js';

export function registerAssessmentsImports(): void {
  registerImportCollection({
    name: 'gaps',
    resource: Gap,
    refs: { assessment_id: 'assessments' },
    // One gap per control of an assessment (also a table constraint).
    unique: [['assessment_id', 'control_code']],
    defaults: { evidence_status: 'missing', evidence: [] },
  });
}

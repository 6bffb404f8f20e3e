// Import collections of this area (management-api.md "Import document"), parents first. A risk's `score` and
// `band` are computed, so the import ignores them (decision 42; importDocument drops every computed field).
import { importCollectionNames, registerImportCollection } from '../../management/import.js';
import { Risk, RiskAcceptance, RiskScorePoint, RiskTreatment } from './schema.js';

export function registerRisksImports(): void {
  // asset_id and threat_id have no foreign key (their tables come from another migration). The import still
  // checks that they name records of the workspace, through the assets and threats collections when those are
  // registered (they are, before this function runs, once their area ships).
  const registered = new Set(importCollectionNames());
  const optionalRefs = Object.fromEntries(
    [
      ['asset_id', 'assets'],
      ['threat_id', 'threats'],
    ].filter(([, collection]) => registered.has(collection as string)),
  );
  registerImportCollection({
    name: 'risks',
    resource: Risk,
    refs: { supplier_id: 'suppliers', ...optionalRefs },
    unique: [['code']],
    defaults: { status: 'open' },
  });
  registerImportCollection({
    name: 'risk_treatments',
    resource: RiskTreatment,
    refs: { risk_id: 'risks' },
    defaults: { status: 'planned' },
  });
  // `{at, score}` only: the record schema has no id or timestamps, and the table generates its own id.
  registerImportCollection({ name: 'risk_score_points', resource: RiskScorePoint });
  registerImportCollection({
    name: 'risk_acceptances',
    resource: RiskAcceptance,
    refs: { risk_id: 'risks' },
    defaults: { status: 'active' },
  });
}

// Import collections of this area (management-api.md "Import document"), parents first. A risk's `score` and
// `band` are computed, so the import ignores them (decision 42; importDocument drops every computed field).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { ImportCollection } from '../../storage/import-collection.js';
import { Risk, RiskAcceptance, RiskScorePoint, RiskTreatment } from './schema.js';

export const risksImports: readonly ImportCollection[] = [
  {
    name: 'risks',
    resource: Risk,
    // asset_id and threat_id have no foreign key in 0004 (their tables were written in parallel); the import
    // still requires them to name assets and threats of the workspace (listed before this area in resources/imports.ts).
    refs: { supplier_id: 'suppliers', asset_id: 'assets', threat_id: 'threats' },
    unique: [['code']],
    defaults: { status: 'open' },
  },
  {
    name: 'risk_treatments',
    resource: RiskTreatment,
    refs: { risk_id: 'risks' },
    defaults: { status: 'planned' },
  },
  // `{at, score}` only: the record schema has no id or timestamps, and the table generates its own id.
  { name: 'risk_score_points', resource: RiskScorePoint },
  {
    name: 'risk_acceptances',
    resource: RiskAcceptance,
    refs: { risk_id: 'risks' },
    defaults: { status: 'active' },
    // A letter is in force from valid_from (inclusive) to valid_until (exclusive): the period may not be empty.
    // Compared to the millisecond, so a pair the database would tell apart by microseconds only is refused too.
    check(record) {
      const from = Date.parse(record.valid_from as string);
      const until = Date.parse(record.valid_until as string);
      return until > from ? null : { valid_until: 'must be after valid_from' };
    },
  },
];

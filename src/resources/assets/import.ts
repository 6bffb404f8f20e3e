// Import collections of this area (management-api.md "Import document"), parents first.
import { validationFailed } from '../../http/errors.js';
import { registerImportCollection } from '../../management/import.js';
import { Asset, providerProblem } from './schema.js';

/** The identity PUT /assets matches on; the same expression as the generated column `match_key`. */
const matchKey = (record: Record<string, unknown>) =>
  `${record.source}|${record.cloud_provider ?? ''}|${record.external_id}`;

export function registerAssetsImports(): void {
  registerImportCollection({
    name: 'assets',
    resource: Asset,
    // (source, cloud_provider, external_id) with a null provider taking part like a value: the import's
    // check compares plain non-null fields, so it is given the computed key (stored by the database itself).
    unique: [['match_key']],
    defaults: { cloud_metadata: {}, review_status: 'discovered', cloud_provider: null },
    normalize(record) {
      const problem = providerProblem(record.source, record.cloud_provider);
      if (problem)
        throw validationFailed({
          'assets.cloud_provider': `${problem} (asset with external_id ${JSON.stringify(record.external_id)})`,
        });
      record.match_key = matchKey(record);
    },
  });
}

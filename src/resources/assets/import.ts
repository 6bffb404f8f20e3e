// Import collections of this area (management-api.md "Import document"), parents first.
import type { ImportCollection } from '../../storage/import-collection.js';
import { Asset, providerProblem } from './schema.js';

export const assetsImports: readonly ImportCollection[] = [
  {
    name: 'assets',
    resource: Asset,
    // (source, cloud_provider, external_id), a manual asset's null provider taking part like a value. The
    // import compares non-null fields, so it is given the key the database stores in the generated column
    // match_key (same expression; the column itself is never written). external_id comes last so that an
    // error names it.
    unique: [['match_key', 'external_id']],
    defaults: { cloud_metadata: {}, cloud_provider: null },
    // The source/provider rule spans two fields, which the per-field record schema cannot express.
    check(record) {
      const problem = providerProblem(record.source, record.cloud_provider);
      return problem ? { cloud_provider: problem } : null;
    },
    normalize(record) {
      record.match_key = `${record.source}|${record.cloud_provider ?? ''}|${record.external_id}`;
    },
  },
];

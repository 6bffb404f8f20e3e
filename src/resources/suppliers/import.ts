// Import collections of this area (management-api.md "Import document").
import type { ImportCollection } from '../../storage/import-collection.js';
import { Supplier } from './schema.js';

export const suppliersImports: readonly ImportCollection[] = [
  {
    name: 'suppliers',
    resource: Supplier,
    unique: [['domain']],
    ignore: ['assessment_count'],
    defaults: { status: 'active', tags: [], source: 'import', contacts: [] },
    normalize(record) {
      if (typeof record.domain === 'string') record.domain = record.domain.toLowerCase();
    },
  },
];

// Import collections of this area (management-api.md "Import document"), parents first: bia refers to
// products_services, threats to assets (listed before this area in resources/imports.ts).
import type { ImportCollection } from '../../storage/import-collection.js';
import { Bia, BusinessProcess, ProcessingActivity, ProductService, Threat } from './schema.js';

export const contextImports: readonly ImportCollection[] = [
  { name: 'business_processes', resource: BusinessProcess },
  { name: 'products_services', resource: ProductService },
  {
    name: 'processing_activities',
    resource: ProcessingActivity,
    defaults: { data_categories: [], is_sensitive_data: false },
  },
  { name: 'bia', resource: Bia, refs: { product_service_id: 'products_services' } },
  {
    name: 'threats',
    resource: Threat,
    refs: { asset_id: 'assets' },
    defaults: { status: 'open', source: 'manual' },
  },
];

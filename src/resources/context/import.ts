// Import collections of this area (management-api.md "Import document"), parents first: bia refers to
// products_services, threats to assets (registered before this area).
import { registerImportCollection } from '../../management/import.js';
import { Bia, BusinessProcess, ProcessingActivity, ProductService, Threat } from './schema.js';

export function registerContextImports(): void {
  registerImportCollection({ name: 'business_processes', resource: BusinessProcess });
  registerImportCollection({ name: 'products_services', resource: ProductService });
  registerImportCollection({
    name: 'processing_activities',
    resource: ProcessingActivity,
    defaults: { data_categories: [], is_sensitive_data: false },
  });
  registerImportCollection({ name: 'bia', resource: Bia, refs: { product_service_id: 'products_services' } });
  registerImportCollection({
    name: 'threats',
    resource: Threat,
    refs: { asset_id: 'assets' },
    defaults: { status: 'open', source: 'manual' },
  });
}

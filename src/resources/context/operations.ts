// The context lists (risk-data-api.md "Context (scope context:read for all)"): cursor-paged, newest first
// (decision 12). The contracts (handlers: routes.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { listOperation } from '../../contract/list.js';
import { Criticality, StringEnum, Uuid } from '../../schema/fields.js';
import {
  Bia,
  BusinessProcess,
  ProcessingActivity,
  ProductService,
  Threat,
  ThreatSeverity,
  ThreatSource,
  ThreatStatus,
} from './schema.js';

const TAG = 'Context';
const SCOPE = 'context:read';

/** A free-string filter (its value set is not shown by the specification). */
const text = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });
const criticality = () => StringEnum(Criticality);

export const listBusinessProcesses = listOperation({
  id: 'listBusinessProcesses',
  path: '/business-processes',
  scope: SCOPE,
  tag: TAG,
  summary: 'List business processes, newest first',
  resource: BusinessProcess,
  filters: { criticality: criticality(), area_id: Uuid },
});

export const listProductsServices = listOperation({
  id: 'listProductsServices',
  path: '/products-services',
  scope: SCOPE,
  tag: TAG,
  summary: 'List products and services, newest first',
  resource: ProductService,
  currency: true,
  filters: { type: text('Exact type, e.g. `product` or `service`.'), criticality: criticality() },
});

export const listProcessingActivities = listOperation({
  id: 'listProcessingActivities',
  path: '/processing-activities',
  scope: SCOPE,
  tag: TAG,
  summary: 'List processing activities, newest first (`owner_name` only with pii:read)',
  resource: ProcessingActivity,
  filters: {
    legal_basis: text('Exact legal basis, e.g. `contract`.'),
    data_category: text('Activities whose `data_categories` holds this category.'),
    // Both values filter (decision 35): false returns the activities without sensitive data.
    is_sensitive_data: Type.Boolean(),
  },
});

export const listBia = listOperation({
  id: 'listBia',
  path: '/bia',
  scope: SCOPE,
  tag: TAG,
  summary: 'List business impact analyses, newest first',
  resource: Bia,
  currency: true,
  filters: { product_service_id: Uuid, resulting_criticality: criticality() },
});

export const listThreats = listOperation({
  id: 'listThreats',
  path: '/threats',
  scope: SCOPE,
  tag: TAG,
  summary: 'List threats, newest first',
  resource: Threat,
  filters: {
    severity: StringEnum(ThreatSeverity),
    status: StringEnum(ThreatStatus),
    source: StringEnum(ThreatSource),
    cve_id: text('A CVE identifier, e.g. CVE-2024-3094.'),
  },
});

/** In the specification's order. */
export const contextOperations = [
  listBusinessProcesses,
  listProductsServices,
  listProcessingActivities,
  listBia,
  listThreats,
];

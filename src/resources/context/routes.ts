// The context lists (risk-data-api.md "Context (scope context:read for all)"): cursor-paged, newest first
// (decision 12), one SQL round trip each.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { type Filter, type ListQuery, listRoute, NEWEST_FIRST } from '../../http/list.js';
import type { RouteDef } from '../../http/route.js';
import { Criticality, StringEnum, Uuid } from '../../schema/fields.js';
import type { Resource } from '../../schema/resource.js';
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

/** A free-string filter (its value set is not shown by the specification). */
const text = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });
const equals = (column: string, schema: Filter['schema']): Filter => ({ schema, where: `t.${column} = ?` });
const criticality = (column: string) => equals(column, StringEnum(Criticality));

function contextList(options: {
  url: string;
  operationId: string;
  summary: string;
  resource: Resource;
  filters: ListQuery['filters'];
  currency?: boolean;
}): RouteDef {
  return listRoute({
    url: options.url,
    operationId: options.operationId,
    scope: 'context:read',
    tag: TAG,
    summary: options.summary,
    currency: options.currency,
    list: { resource: options.resource, order: NEWEST_FIRST, filters: options.filters },
  });
}

export const contextRoutes: RouteDef[] = [
  contextList({
    url: '/business-processes',
    operationId: 'listBusinessProcesses',
    summary: 'List business processes, newest first',
    resource: BusinessProcess,
    filters: { criticality: criticality('criticality'), area_id: equals('area_id', Uuid) },
  }),
  contextList({
    url: '/products-services',
    operationId: 'listProductsServices',
    summary: 'List products and services, newest first',
    resource: ProductService,
    currency: true,
    filters: {
      type: equals('type', text('Exact type, e.g. `product` or `service`.')),
      criticality: criticality('criticality'),
    },
  }),
  contextList({
    url: '/processing-activities',
    operationId: 'listProcessingActivities',
    summary: 'List processing activities, newest first (`owner_name` only with pii:read)',
    resource: ProcessingActivity,
    filters: {
      legal_basis: equals('legal_basis', text('Exact legal basis, e.g. `contract`.')),
      data_category: {
        schema: text('Activities whose `data_categories` holds this category.'),
        where: 't.data_categories @> array[?::text]',
      },
      // Both values filter (decision 35): false returns the activities without sensitive data.
      is_sensitive_data: { schema: Type.Boolean(), where: 't.is_sensitive_data = ?::boolean' },
    },
  }),
  contextList({
    url: '/bia',
    operationId: 'listBia',
    summary: 'List business impact analyses, newest first',
    resource: Bia,
    currency: true,
    filters: {
      product_service_id: equals('product_service_id', Uuid),
      resulting_criticality: criticality('resulting_criticality'),
    },
  }),
  contextList({
    url: '/threats',
    operationId: 'listThreats',
    summary: 'List threats, newest first',
    resource: Threat,
    filters: {
      severity: equals('severity', StringEnum(ThreatSeverity)),
      status: equals('status', StringEnum(ThreatStatus)),
      source: equals('source', StringEnum(ThreatSource)),
      // CVE identifiers are case-insensitive by convention (CVE-2024-3094 = cve-2024-3094).
      cve_id: { schema: text('A CVE identifier, e.g. CVE-2024-3094.'), where: 'upper(t.cve_id) = upper(?)' },
    },
  }),
];

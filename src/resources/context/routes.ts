// The handlers of the context lists (operations.ts): one SQL round trip each.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { handleList, NEWEST_FIRST } from '../../http/list.js';
import type { Route } from '../../http/route.js';
import {
  listBia,
  listBusinessProcesses,
  listProcessingActivities,
  listProductsServices,
  listThreats,
} from './operations.js';

/** The filter's value equals the column of the same name. */
const equals = (column: string) => `t.${column} = ?`;

export const contextRoutes: Route[] = [
  handleList(listBusinessProcesses, {
    order: NEWEST_FIRST,
    where: { criticality: equals('criticality'), area_id: equals('area_id') },
  }),
  handleList(listProductsServices, {
    order: NEWEST_FIRST,
    where: { type: equals('type'), criticality: equals('criticality') },
  }),
  handleList(listProcessingActivities, {
    order: NEWEST_FIRST,
    where: {
      legal_basis: equals('legal_basis'),
      data_category: 't.data_categories @> array[?::text]',
      is_sensitive_data: 't.is_sensitive_data = ?::boolean',
    },
  }),
  handleList(listBia, {
    order: NEWEST_FIRST,
    where: {
      product_service_id: equals('product_service_id'),
      resulting_criticality: equals('resulting_criticality'),
    },
  }),
  handleList(listThreats, {
    order: NEWEST_FIRST,
    where: {
      severity: equals('severity'),
      status: equals('status'),
      source: equals('source'),
      // CVE identifiers are case-insensitive by convention (CVE-2024-3094 = cve-2024-3094).
      cve_id: 'upper(t.cve_id) = upper(?)',
    },
  }),
];

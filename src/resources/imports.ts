// The collections of the Import document, in dependency order (parents first): the import (management/
// import.ts) validates and writes them in this order, and a collection's references name earlier ones. The
// audit trail's own writer runs after every other collection.
import { actionPlansImports } from './action-plans/import.js';
import { alertsImports } from './alerts/import.js';
import { assessmentsImports } from './assessments/import.js';
import { assetsImports } from './assets/import.js';
import { auditLogsImports } from './audit-logs/import.js';
import { contextImports } from './context/import.js';
import { reportsImports } from './reports/import.js';
import { risksImports } from './risks/import.js';
import { suppliersImports } from './suppliers/import.js';

export const importCollections = [
  ...suppliersImports,
  ...assessmentsImports,
  ...reportsImports,
  ...assetsImports,
  ...contextImports,
  ...risksImports,
  ...actionPlansImports,
  ...alertsImports,
  ...auditLogsImports,
];

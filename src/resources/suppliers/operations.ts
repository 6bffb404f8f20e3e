// GET /suppliers, POST /suppliers, GET /suppliers/{id}: the contracts (handlers: routes.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { conflict } from '../../contract/errors.js';
import { getOperation, listOperation } from '../../contract/list.js';
import { apiKey, operation } from '../../contract/operation.js';
import { Supplier, SupplierCreate, SupplierDetail } from './schema.js';

const TAG = 'Suppliers';

/**
 * Search (P160): a case-insensitive prefix of the name or of the domain, combinable with every other filter
 * and with the cursor. Empty or blank is a 400, not "no filter": a caller that builds `q` from an empty value
 * would otherwise get every supplier. At most as long as a name may be.
 */
const SupplierSearch = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description:
    'Suppliers whose name or domain starts with this text, ignoring case (`acme` finds "Acme Corp" and ' +
    '"acme.example"; `%` and `_` are plain characters). 1 to 200 characters, not only spaces.',
});

export const listSuppliers = listOperation({
  id: 'listSuppliers',
  path: '/suppliers',
  scope: 'suppliers:read',
  tag: TAG,
  summary: 'List suppliers, newest first',
  currency: true,
  resource: Supplier,
  fieldFilters: ['status', 'criticality', 'risk_group', 'vendor_profile'],
  filters: {
    q: SupplierSearch,
    tag: Type.String({ minLength: 1, maxLength: 64, description: 'Suppliers carrying this tag.' }),
  },
});

export const getSupplier = getOperation({
  id: 'getSupplier',
  path: '/suppliers/:id',
  scope: 'suppliers:read',
  tag: TAG,
  summary: 'Get one supplier, with its assessment count',
  resource: SupplierDetail,
  noun: 'supplier',
});

export function duplicateDomain(existingId: string, domain: string) {
  return conflict('A supplier with this domain already exists in the workspace.', {
    existing_supplier_id: existingId,
    domain,
  });
}

// An API-created supplier's source is always `import` and its status `pending` (decision 41; imports default
// to `active`, P7), whatever the request says.
export const CREATED = { source: 'import', status: 'pending' } as const;

export const createSupplier = operation({
  id: 'createSupplier',
  method: 'POST',
  path: '/suppliers',
  auth: apiKey('suppliers:write'),
  tag: TAG,
  summary: 'Create a supplier',
  description: 'The supplier starts `pending`; its `source` is always `import`, whatever the request says.',
  body: SupplierCreate,
  idempotent: true,
  responses: {
    201: {
      description: 'The created supplier.',
      schema: Supplier.schema,
      // is_active follows status (its field's SQL), shown here for the document's example.
      created: { ...CREATED, is_active: false },
    },
    409: {
      description:
        'A supplier with this domain exists in the workspace (`details` names it), or the Idempotency-Key ' +
        'is in use or was used with another body.',
      errors: [duplicateDomain('8d7f3c1e-2b4a-4f6e-9a0c-5e1d3b7f9a24', 'acme.example')],
    },
  },
});

/** In the specification's order. */
export const suppliersOperations = [listSuppliers, createSupplier, getSupplier];

// GET /suppliers, POST /suppliers, GET /suppliers/{id}.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import { type ApiError, conflict } from '../../contract/errors.js';
import { fieldFilters, getRoute, listRoute } from '../../http/list.js';
import { type RouteDef, route } from '../../http/route.js';
import { DateTime } from '../../schema/fields.js';
import { Supplier, SupplierCreate, SupplierDetail } from './schema.js';

const TAG = 'Suppliers';

const listSuppliers = listRoute({
  url: '/suppliers',
  operationId: 'listSuppliers',
  scope: 'suppliers:read',
  tag: TAG,
  summary: 'List suppliers, newest first',
  currency: true,
  list: {
    resource: Supplier,
    order: { column: 'created_at', direction: 'desc' },
    filters: {
      ...fieldFilters(Supplier, ['status', 'criticality', 'risk_group', 'vendor_profile']),
      tag: {
        schema: Type.String({ minLength: 1, maxLength: 64, description: 'Suppliers carrying this tag.' }),
        where: 't.tags @> array[?::text]',
      },
      updated_since: { schema: DateTime, where: 't.updated_at >= ?::timestamptz' },
    },
  },
});

const getSupplier = getRoute({
  url: '/suppliers/:id',
  operationId: 'getSupplier',
  scope: 'suppliers:read',
  tag: TAG,
  summary: 'Get one supplier, with its assessment count',
  resource: SupplierDetail,
  noun: 'supplier',
});

function duplicateDomain(existingId: string, domain: string): ApiError {
  return conflict('A supplier with this domain already exists in the workspace.', {
    existing_supplier_id: existingId,
    domain,
  });
}

// An API-created supplier's source is always `import` and its status `pending` (decision 41; imports default
// to `active`, P7), whatever the request says.
const CREATED = { source: 'import', status: 'pending' } as const;

const INSERTED = Supplier.columnList(
  'id',
  'name',
  'domain',
  'email',
  'industry',
  'size',
  'country',
  'criticality',
  'risk_group',
  'vendor_profile',
  'tags',
  'source',
  'status',
);

const createSupplier = route({
  method: 'POST',
  url: '/suppliers',
  operationId: 'createSupplier',
  scope: 'suppliers:write',
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
  async handler(ctx, { body: input }) {
    const domain = input.domain ? input.domain.toLowerCase() : null;
    const id = randomUUID();
    // Read back with and without the personal fields: the pipeline sends the one the caller's scopes allow,
    // and a replay by another key of the workspace gets the one its own scopes allow (P76).
    const full = Supplier.row('t', { pii: true, engine: ctx.tenant.engine });
    const withoutPii = Supplier.row('t', { pii: false, engine: ctx.tenant.engine });
    // One round trip (pipeline mode) creates, reads back and writes the audit entry; a taken domain inserts
    // nothing (the unique index decides, also between two racing creates): then the existing supplier is named
    // in the 409, and the audit entry goes with the rest of the work (the idempotent write's savepoint).
    const [[created]] = await Promise.all([
      ctx.tenant.queryArrays(
        `insert into suppliers as t (workspace_id, ${INSERTED})
         values ($ws, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::text[], $12, $13)
         on conflict (workspace_id, domain) where domain is not null do nothing
         returning ${full.sql}, ${withoutPii.sql}`,
        [
          id,
          input.name,
          domain,
          input.email ?? null,
          input.industry ?? null,
          input.size ?? null,
          input.country ?? null,
          input.criticality ?? null,
          input.risk_group ?? null,
          input.vendor_profile ?? null,
          input.tags ?? [],
          CREATED.source,
          CREATED.status,
        ],
      ),
      ctx.audit('supplier.created', { type: 'supplier', id }),
    ]);
    if (!created) {
      const [existing] = await ctx.tenant.query<{ id: string }>(
        'select id from suppliers where workspace_id = $ws and domain = $1',
        [domain],
      );
      throw duplicateDomain(existing?.id ?? '', domain ?? '');
    }
    return {
      status: 201,
      body: full.render(created),
      withoutPii: withoutPii.render(created, full.width),
    };
  },
});

export const supplierRoutes: RouteDef[] = [listSuppliers, createSupplier, getSupplier];

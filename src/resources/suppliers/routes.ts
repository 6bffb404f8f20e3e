// The handlers of the suppliers' operations (operations.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import { handleGet, handleList, NEWEST_FIRST } from '../../http/list.js';
import { handle, type Route } from '../../http/route.js';
import { CREATED, createSupplier, duplicateDomain, getSupplier, listSuppliers } from './operations.js';
import { Supplier } from './schema.js';

/** The LIKE pattern of a search: the lowered text with `\`, `%` and `_` escaped, then `%`. */
const PREFIX = String.raw`(replace(replace(replace(lower(?::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')`;

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

const create = handle(createSupplier, async (ctx, { body: input }) => {
  const domain = input.domain ? input.domain.toLowerCase() : null;
  const id = randomUUID();
  // Read back with and without the personal fields: the pipeline sends the one the caller's scopes allow,
  // and a replay by another key of the workspace gets the one its own scopes allow (P76).
  const full = Supplier.row('t', { pii: true, engine: ctx.tenant.engine });
  const withoutPii = Supplier.row('t', { pii: false, engine: ctx.tenant.engine });
  // One round trip (pipeline mode) creates, reads back, writes the audit entry and records the opt-in
  // `supplier.created` event (P177: in the event log, and to the endpoints that subscribed to it by name); a
  // taken domain inserts nothing (the unique index decides, also between two racing creates): then the existing
  // supplier is named in the 409, and the audit entry and the event go with the rest of the work (the
  // idempotent write's savepoint), P229.
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
    ctx.events('supplier.created', { supplier_id: id }),
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
});

export const suppliersRoutes: Route[] = [
  handleList(listSuppliers, {
    order: NEWEST_FIRST,
    where: {
      // P160: a prefix of the lowered name or domain, LIKE's wildcards escaped (indexes of migration 0019).
      q: `(lower(t.name) like ${PREFIX} or lower(t.domain) like ${PREFIX})`,
      tag: 't.tags @> array[?::text]',
    },
  }),
  create,
  handleGet(getSupplier),
];

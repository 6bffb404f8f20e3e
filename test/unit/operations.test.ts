// Binding contracts to handlers (src/http/list.ts, src/http/route.ts): a list's filters are written once in
// its contract, and the handler module's SQL must name the same ones; each operation the listener serves is
// bound exactly once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { listOperation } from '../../src/contract/list.js';
import { handleList, NEWEST_FIRST } from '../../src/http/list.js';
import { type PublicServices, pipelineSteps, registerRoutes } from '../../src/http/route.js';
import { listSuppliers } from '../../src/resources/suppliers/operations.js';
import { Supplier } from '../../src/resources/suppliers/schema.js';

// updated_since is bound by handleList itself (P178): the slice gives only its own filters.
const SUPPLIER_SQL = { q: 'lower(t.name) like ?', tag: 't.tags @> array[?::text]' };

describe('binding operations', () => {
  test("a list's handler gives the SQL of exactly the filters its contract declares", () => {
    assert.doesNotThrow(() => handleList(listSuppliers, { order: NEWEST_FIRST, where: SUPPLIER_SQL }));
    const { tag, ...missing } = SUPPLIER_SQL as Partial<typeof SUPPLIER_SQL>;
    // The casts stand for a contract and a handler module that disagree (a type error when written directly).
    assert.throws(
      () => handleList(listSuppliers, { order: NEWEST_FIRST, where: missing as typeof SUPPLIER_SQL }),
      /listSuppliers: the SQL of filters \[q\] does not match the contract's \[q,tag\]/,
    );
    assert.throws(
      () =>
        handleList(listSuppliers, {
          order: NEWEST_FIRST,
          where: { ...SUPPLIER_SQL, status: 't.status = ?' } as typeof SUPPLIER_SQL,
        }),
      /does not match/,
    );
  });

  test('a computed field cannot be a field filter', () => {
    assert.throws(
      () =>
        listOperation({
          id: 'x',
          path: '/x',
          scope: 'suppliers:read',
          tag: 'x',
          summary: 'x',
          resource: Supplier,
          fieldFilters: ['is_active'],
        }),
      /Supplier.is_active is computed/,
    );
  });

  test('the listener refuses an operation bound twice or not at all', () => {
    const route = handleList(listSuppliers, { order: NEWEST_FIRST, where: SUPPLIER_SQL });
    const services = {} as PublicServices;
    assert.throws(
      () => registerRoutes(Fastify(), services, [], [listSuppliers]),
      /operations not bound: \[listSuppliers\]/,
    );
    assert.throws(
      () => registerRoutes(Fastify(), services, [route, route], [listSuppliers]),
      /bound twice or not served: \[listSuppliers\]/,
    );
    assert.throws(() => registerRoutes(Fastify(), services, [route], []), /not served: \[listSuppliers\]/);
  });

  // One pipeline for every operation: each auth lists its steps in the order they run, each step written once.
  test("each auth's checks run in the documented order (decision 1 for an API key, P114 and P158 for the operator)", () => {
    assert.deepEqual(pipelineSteps('apiKey'), [
      'keyAuthentication',
      'singleValuedHeaders',
      'queryParameters',
      'noBodyOnRead',
      'objectBody',
      'idempotencyKey',
      'bodyFields',
      'pathIds',
    ]);
    assert.deepEqual(pipelineSteps('none'), ['addressLimit', 'openParameters']);
    assert.deepEqual(pipelineSteps('operator'), [
      'operatorToken',
      'singleValuedHeaders',
      'pathIds',
      'pathWorkspace',
      'queryParameters',
      'noBody',
      'bodyFields',
      'operatorBudget',
    ]);
  });
});

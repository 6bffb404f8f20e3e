// The Import document (management-api.md): one JSON object of collections, each an array of records with the
// public field names. Records are validated against the same resource definitions the API serializes from,
// references must resolve inside the workspace, and the whole document is written in one transaction.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import { type TSchema, Type } from 'typebox';
import { invalidRequest, validationFailed } from '../contract/errors.js';
import { checker } from '../http/validation.js';
import { importCollections as collections } from '../resources/imports.js';
import type { ImportCollection } from '../storage/import-collection.js';
import type { OperatorStore } from '../storage/operator.js';
import type { TenantDb } from '../storage/tenant.js';

const recordSchemas = new Map<string, (value: unknown) => Record<string, string> | null>();

function recordSchema(collection: ImportCollection): TSchema {
  const properties: Record<string, TSchema> = {};
  const required: string[] = [];
  for (const name of collection.resource.columns) {
    const spec = collection.resource.fields[name];
    if (!spec) continue;
    properties[name] = Type.Optional(spec.schema);
    if (spec.required) required.push(name);
  }
  return Type.Unsafe({ type: 'object', properties, required, additionalProperties: false });
}

function validatorFor(collection: ImportCollection) {
  let validate = recordSchemas.get(collection.name);
  if (!validate) {
    validate = checker(recordSchema(collection));
    recordSchemas.set(collection.name, validate);
  }
  return validate;
}

const MAX_REPORTED_ERRORS = 100;

/** Imports `document` into the workspace in one unit of work, or refuses it whole (400, 422). */
export async function importDocument(
  store: OperatorStore,
  workspaceId: string,
  document: unknown,
): Promise<Record<string, number>> {
  if (!document || typeof document !== 'object' || Array.isArray(document)) {
    throw invalidRequest('The import document must be a JSON object of collections.');
  }
  const doc = document as Record<string, unknown>;
  const errors: Record<string, string> = {};
  const fail = (path: string, message: string) => {
    if (Object.keys(errors).length < MAX_REPORTED_ERRORS) errors[path] = message;
  };
  const known = new Map(collections.map((collection) => [collection.name, collection]));
  for (const name of Object.keys(doc)) {
    if (!known.has(name)) fail(name, 'is not a known collection');
    else if (!Array.isArray(doc[name])) fail(name, 'must be an array of records');
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  // 1. Each record on its own. Computed fields are ignored (decision 42).
  const prepared = new Map<string, Record<string, unknown>[]>();
  const idsInDocument = new Map<string, Set<string>>();
  for (const collection of collections) {
    const records = doc[collection.name] as unknown[] | undefined;
    if (!records) continue;
    const validate = validatorFor(collection);
    const rows: Record<string, unknown>[] = [];
    const ids = new Set<string>();
    records.forEach((raw, index) => {
      const path = `${collection.name}[${index}]`;
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
        fail(path, 'must be an object');
        return;
      }
      const record: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(raw)) {
        const computed =
          collection.resource.fields[key]?.sql !== undefined || collection.ignore?.includes(key);
        if (!computed) record[key] = value;
      }
      const problems = validate(record) ?? collection.check?.(record) ?? null;
      if (problems) {
        for (const [field, message] of Object.entries(problems)) fail(`${path}.${field}`, message);
        return;
      }
      record.id ??= randomUUID();
      if (ids.has(record.id as string)) fail(`${path}.id`, 'is repeated in the document');
      ids.add(record.id as string);
      const defaults = { ...collection.resource.initials, ...collection.defaults };
      for (const [column, value] of Object.entries(defaults)) record[column] ??= value;
      record.created_at ??= new Date().toISOString();
      if ('updated_at' in collection.resource.fields) record.updated_at ??= record.created_at;
      collection.normalize?.(record);
      rows.push(record);
    });
    prepared.set(collection.name, rows);
    idsInDocument.set(collection.name, ids);
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  return store.write(workspaceId, async (unit) => {
    const { tenant } = unit;
    // 2. Ids are new to the workspace, and references resolve inside it: the document or what is stored.
    for (const collection of collections) {
      const rows = prepared.get(collection.name);
      if (!rows) continue;
      const taken = await existingIds(
        tenant,
        collection.resource.table,
        rows.map((row) => row.id as string),
      );
      rows.forEach((row, index) => {
        if (taken.has(row.id as string))
          fail(`${collection.name}[${index}].id`, 'is already used by a stored record');
      });
      for (const [field, target] of Object.entries(collection.refs ?? {})) {
        const targetCollection = known.get(target) as ImportCollection;
        const wanted = [
          ...new Set(
            rows.map((row) => row[field]).filter((value): value is string => typeof value === 'string'),
          ),
        ].filter((id) => !idsInDocument.get(target)?.has(id));
        const stored = await existingIds(tenant, targetCollection.resource.table, wanted);
        rows.forEach((row, index) => {
          const value = row[field];
          if (typeof value === 'string' && !idsInDocument.get(target)?.has(value) && !stored.has(value)) {
            fail(
              `${collection.name}[${index}].${field}`,
              `does not match a ${target} record of this workspace`,
            );
          }
        });
      }
      // 3. Uniqueness within the document and against stored records.
      for (const fields of collection.unique ?? []) {
        const seen = new Map<string, number>();
        rows.forEach((row, index) => {
          if (fields.some((name) => row[name] === null || row[name] === undefined)) return;
          const value = JSON.stringify(fields.map((name) => row[name]));
          if (seen.has(value))
            fail(
              `${collection.name}[${index}].${fields.at(-1)}`,
              `repeats ${fields.join(', ')} of ${collection.name}[${seen.get(value)}]`,
            );
          else seen.set(value, index);
        });
        const clashes = await tenant.query<{ v: string }>(
          `select json_build_array(${fields.map((name) => `t.${name}`).join(', ')})::text as v
             from ${collection.resource.table} t
             join json_populate_recordset(null::${collection.resource.table}, $1::json) r
               on ${fields.map((name) => `t.${name} = r.${name}`).join(' and ')}
            where t.workspace_id = $ws and t.id <> r.id`,
          [
            JSON.stringify(
              rows.map((row) => Object.fromEntries([...fields, 'id'].map((name) => [name, row[name]]))),
            ),
          ],
        );
        const taken = new Set(clashes.map((row) => JSON.stringify(JSON.parse(row.v))));
        rows.forEach((row, index) => {
          if (taken.has(JSON.stringify(fields.map((name) => row[name])))) {
            fail(
              `${collection.name}[${index}].${fields.at(-1)}`,
              `is already used by another ${collection.name} record`,
            );
          }
        });
      }
    }
    if (Object.keys(errors).length > 0) throw validationFailed(errors);

    // 4. Write, parents before children; collections with their own writer last.
    const created: Record<string, number> = {};
    const recorded: Record<string, unknown> = {};
    for (const collection of collections) {
      const rows = prepared.get(collection.name);
      if (rows && !collection.write) await insertRows(tenant, collection, rows);
      if (rows) created[collection.name] = rows.length;
    }
    for (const collection of collections) {
      if (collection.write)
        Object.assign(recorded, await collection.write(unit, prepared.get(collection.name) ?? [], fail));
    }
    // The transaction rolls back: nothing is written.
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    await unit.audit(
      'workspace.data_imported',
      { type: 'workspace', id: workspaceId },
      { created, ...recorded },
    );
    return created;
  });
}

async function existingIds(tenant: TenantDb, table: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await tenant.query<{ id: string }>(
    `select id from ${table} where workspace_id = $ws and id = any($1::uuid[])`,
    [ids],
  );
  return new Set(rows.map((row) => row.id));
}

const CHUNK = 1000;

/** Inserts records through json_populate_recordset: PostgreSQL converts every type (arrays, jsonb, instants). */
async function insertRows(
  tenant: TenantDb,
  collection: ImportCollection,
  rows: Record<string, unknown>[],
): Promise<void> {
  const columns = [...collection.resource.columns, ...(collection.internalColumns ?? [])];
  const list = columns.join(', ');
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK);
    await tenant.query(
      `insert into ${collection.resource.table} (workspace_id, ${list})
       select $ws, ${list} from json_populate_recordset(null::${collection.resource.table}, $1::json)`,
      [JSON.stringify(chunk)],
    );
  }
}

export function importCollectionNames(): string[] {
  return collections.map((collection) => collection.name);
}

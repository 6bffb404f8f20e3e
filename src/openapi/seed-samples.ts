// The records the OpenAPI examples show: made by the seed generator (src/management/seed), the same code that
// fills the demo workspace, so that an example reads like real data. A fixed seed and date keep the document
// reproducible.
import { generateSeedDocument } from '../management/seed/index.js';
import { resourceTables } from '../schema/resource.js';

const SEED = { size: { suppliers: 3 }, seed: 2025, now: new Date('2025-06-02T00:00:00Z') };

let document: Record<string, Record<string, unknown>[]> | undefined;

/** The first seed record of the resource named `title` (a schema title such as `Supplier`), if any. */
export function seedSample(title: string): Record<string, unknown> | undefined {
  const table = resourceTables.get(title);
  return table === undefined ? undefined : records(table)[0];
}

function records(table: string): Record<string, unknown>[] {
  document ??= generateSeedDocument(SEED);
  return document[table] ?? [];
}

/** The id of the first seed record of `table`, if the table's records have ids. */
export function seedId(table: string): string | undefined {
  const id = records(table)[0]?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The seed record a request body's object titled `title` shows: that of the resource its name begins with
 * (`SupplierCreate`, `AssetUpsertItem`), else `otherwise` (the record the operation answers with).
 */
export function writeSample(title: string, otherwise?: string): Record<string, unknown> | undefined {
  const resource = [...resourceTables.keys()]
    .filter((name) => title.startsWith(name))
    .sort((a, b) => b.length - a.length)[0];
  return resource ? seedSample(resource) : otherwise ? seedSample(otherwise) : undefined;
}

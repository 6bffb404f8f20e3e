// The records the OpenAPI examples show: made by the seed generator (src/management/seed), the same code that
// fills the demo workspace, so that an example reads like real data. A fixed seed and date keep the document
// reproducible.
import { generateSeedDocument } from '../management/seed/index.js';
import { resourceTables } from '../schema/resource.js';

/** The data set the examples come from (tests import it into a workspace to compare with real answers). */
export const EXAMPLE_SEED = { size: { suppliers: 4 }, seed: 2025, now: new Date('2025-06-02T00:00:00Z') };

let document: Record<string, Record<string, unknown>[]> | undefined;

/** The first seed record of the resource named `title` (a schema title such as `Supplier`), if any. */
export function seedSample(title: string): Record<string, unknown> | undefined {
  const table = resourceTables.get(title);
  return table === undefined ? undefined : records(table)[0];
}

function records(table: string): Record<string, unknown>[] {
  document ??= generateSeedDocument(EXAMPLE_SEED);
  return document[table] ?? [];
}

/** The id of the first seed record of `table`, if the table's records have ids. */
export function seedId(table: string): string | undefined {
  const id = records(table)[0]?.id;
  return typeof id === 'string' ? id : undefined;
}

/** Names of the schemas a request writes a resource with: `SupplierCreate`, `AssetUpsertItem`. */
const WRITE_SHAPE = /^([A-Z]\w*?)(Create|UpsertItem)$/;

/**
 * The seed record a request body's object titled `title` shows: that of the resource it writes (its name
 * less `Create` or `UpsertItem`), else `otherwise` (the record the operation answers with). A body shows only
 * its required fields; an upsert's envelope (`AssetUpsert`) writes no resource and keeps its schema's values,
 * since a seed asset's `source` (cloud) would need its provider, an optional field the body leaves out.
 */
export function writeSample(title: string, otherwise?: string): Record<string, unknown> | undefined {
  const written = WRITE_SHAPE.exec(title)?.[1];
  return written !== undefined ? seedSample(written) : otherwise ? seedSample(otherwise) : undefined;
}

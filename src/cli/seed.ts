// `tprm seed`: streams a generated demo data set into a workspace through the import endpoint, one batch per
// import transaction, with progress on stderr.
import { countSeedRecords, generateSeedBatches, type ImportDocument } from '../seed/index.js';
import type { Io } from './command.js';
import { ApiCallError, CliError } from './errors.js';
import { print, table } from './output.js';
import { type Progress, progress } from './progress.js';

export interface SeedOptions {
  suppliers: number;
  seed: number;
  batchSize: number;
}

/** The collections an import 422 refuses as unknown: `details.fields` keyed by a bare collection name of the
 * document (record errors are keyed `collection[index].field`). */
function unknownCollections(error: unknown, document: ImportDocument): string[] {
  if (!(error instanceof ApiCallError) || error.status !== 422) return [];
  const fields = (error.details?.fields ?? {}) as Record<string, unknown>;
  return Object.keys(fields).filter((key) => Object.hasOwn(document, key));
}

const addCounts = (into: Record<string, number>, from: Record<string, number>) => {
  for (const [name, count] of Object.entries(from)) into[name] = (into[name] ?? 0) + count;
};

/** Where a seed run stands. */
interface SeedState {
  /** What the server refused as unknown: dropped from this batch and every later one, and said once (the
   * server's set of collections grows as resource areas land). */
  dropped: Set<string>;
  created: Record<string, number>;
  skipped: Record<string, number>;
  done: number;
  batches: number;
}

/** Imports one batch, without the collections the server refuses. */
async function importBatch(
  io: Io,
  workspaceId: string,
  batch: ImportDocument,
  state: SeedState,
  bar: Progress,
): Promise<void> {
  for (;;) {
    const document = Object.fromEntries(Object.entries(batch).filter(([name]) => !state.dropped.has(name)));
    if (Object.keys(document).length === 0) break;
    try {
      const result = await io.admin.importData({ params: { id: workspaceId }, body: document });
      addCounts(state.created, result.created);
      break;
    } catch (error) {
      const refused = unknownCollections(error, document);
      if (refused.length === 0) throw error;
      for (const name of refused) {
        state.dropped.add(name);
        bar.log(`note: the server does not accept "${name}" records: skipping that collection.`);
      }
    }
  }
  for (const [name, records] of Object.entries(batch)) {
    if (state.dropped.has(name)) addCounts(state.skipped, { [name]: records.length });
    state.done += records.length;
  }
}

export async function seed(io: Io, workspaceId: string, opts: SeedOptions): Promise<void> {
  await io.admin.getWorkspace({ params: { id: workspaceId } }); // fail fast on a wrong id
  const options = { size: { suppliers: opts.suppliers }, seed: opts.seed, batchSize: opts.batchSize };
  const total = countSeedRecords(options);
  const bar = progress(total, { task: 'seed', unit: 'records' });
  const started = Date.now();
  const state: SeedState = { dropped: new Set(), created: {}, skipped: {}, done: 0, batches: 0 };
  try {
    for (const batch of generateSeedBatches(options)) {
      state.batches++;
      await importBatch(io, workspaceId, batch, state, bar);
      bar.update(state.done);
    }
  } catch (error) {
    bar.stop(false);
    if (error instanceof CliError) {
      error.notes.push(
        `seed stopped after ${state.done} of ${total} records; the batches before it were imported.`,
        'Seed ids are deterministic: seeding a workspace twice with the same --seed repeats them.',
      );
    }
    throw error;
  }
  bar.stop(true);
  printSummary(io, workspaceId, opts, { ...state, total, seconds: (Date.now() - started) / 1000 });
}

function printSummary(
  io: Io,
  workspaceId: string,
  opts: SeedOptions,
  run: SeedState & { total: number; seconds: number },
): void {
  const { created, skipped, dropped, batches, seconds } = run;
  const imported = Object.values(created).reduce((sum, count) => sum + count, 0);
  const summary = {
    workspace_id: workspaceId,
    suppliers: opts.suppliers,
    seed: opts.seed,
    batch_size: opts.batchSize,
    batches,
    records: run.total,
    imported,
    created,
    skipped,
    skipped_collections: [...dropped],
    seconds,
  };
  print(io, summary, () =>
    [
      `Seeded workspace ${workspaceId}: ${imported} records in ${batches} batches, ${seconds.toFixed(1)}s.`,
      '',
      table(
        Object.entries(created).map(([collection, count]) => ({ collection, created: count })),
        ['collection', 'created'],
      ),
      ...(dropped.size > 0
        ? [
            '',
            `Skipped (not accepted by the server): ${[...dropped].map((n) => `${n} ${skipped[n]}`).join(', ')}`,
          ]
        : []),
    ].join('\n'),
  );
}

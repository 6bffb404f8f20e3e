// `tprm seed`: streams a generated demo data set into a workspace through the import endpoint, one batch per
// import transaction, with progress on stderr.
import { countSeedRecords, generateSeedBatches, type ImportDocument } from '../seed/index.js';
import type { Io } from './command.js';
import { ApiCallError, CliError } from './errors.js';
import { count, print, table } from './output.js';
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

/** The problems an import 422 names at most (management/import.ts). */
const MAX_NAMED = 100;

const batchCount = (total: number, size: number) => Math.max(1, Math.ceil(total / size));

/** What an import 422 says is already taken, by collection: ids (`ids`) and unique fields (by field name). */
type Clashes = Map<string, Map<string, number>>;

/**
 * The records of the batch that the workspace already holds (P170): an import 422 whose every problem is a
 * record id or a unique field already used by a stored record. Null for any other failure.
 */
function clashes(error: unknown): Clashes | null {
  if (!(error instanceof ApiCallError) || error.status !== 422) return null;
  const fields = Object.entries((error.details?.fields ?? {}) as Record<string, unknown>);
  const found: Clashes = new Map();
  for (const [key, problem] of fields) {
    const match = /^(\w+)\[\d+\]\.(\w+)$/.exec(key);
    if (
      !match ||
      typeof problem !== 'string' ||
      !/^is already used by (a stored|another \w+) record$/.test(problem)
    )
      return null;
    const [, collection, field] = match as unknown as [string, string, string];
    const byField = found.get(collection) ?? new Map<string, number>();
    byField.set(field, (byField.get(field) ?? 0) + 1);
    found.set(collection, byField);
  }
  return found.size > 0 ? found : null;
}

/** The seed's refusal said plainly: which records clash, why, and what to do instead. */
function clashError(workspaceId: string, opts: SeedOptions, found: Clashes): CliError {
  const parts: string[] = [];
  let problems = 0;
  let ids = false;
  for (const [collection, byField] of found)
    for (const [field, n] of byField) {
      ids ||= field === 'id';
      problems += n;
      parts.push(count(n, `${field} of ${collection}`, `${field}s of ${collection}`));
    }
  const error = new CliError(
    `Workspace ${workspaceId} already holds records this demo data set would repeat (${parts.join(', ')}${problems >= MAX_NAMED ? ', and maybe more: the server names the first 100' : ''}): ` +
      'the seed fills an empty workspace and never changes or duplicates what is there.',
  );
  error.code = 'seed_conflict';
  if (ids)
    error.notes.push(
      `--seed ${opts.seed} was seeded into this workspace before: the same --seed makes the same record ids.`,
    );
  const unique = [...found.values()].some((byField) => [...byField.keys()].some((field) => field !== 'id'));
  if (unique)
    error.notes.push(
      'supplier domains, asset external ids and risk codes (R-0001…) come from fixed lists, whatever the --seed: ' +
        'they clash with those of an earlier seed or of the same records entered by hand.',
    );
  error.notes.push(
    `seed an empty workspace instead: tprm workspaces create --name "Demo" --plan enterprise, then tprm seed <its id> --suppliers ${opts.suppliers}`,
  );
  return error;
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
    const clash = clashes(error);
    const failure = clash ? clashError(workspaceId, opts, clash) : error;
    if (failure instanceof CliError) {
      const batches = batchCount(total, opts.batchSize);
      failure.notes.unshift(
        state.batches === 1
          ? `nothing was imported: ${batches === 1 ? 'the only batch' : `batch 1 of ${batches}`} was refused whole.`
          : `seed stopped after ${state.done} of ${count(total, 'record')}: ${state.batches === 2 ? 'the batch before it was' : `the ${state.batches - 1} batches before it were`} imported, the one refused was not.`,
      );
    }
    throw failure;
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
      `Seeded workspace ${workspaceId}: ${count(imported, 'record')} in ${count(batches, 'batch', 'batches')}, ${seconds.toFixed(1)}s.`,
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

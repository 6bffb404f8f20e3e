// First start of an empty embedded store: a demo workspace full of realistic data, a key with every scope,
// and a line to paste. The secrets are shown once, where a person sees them and a log collector does not,
// and never stored in clear.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { ObjectStorage } from '../reports/storage.js';
import { renderReport } from '../resources/reports/admin.js';
import { SCOPES } from '../schema/fields.js';
import { generateSeedDocument } from '../seed/index.js';
import { DEMO_ADMIN, DEMO_WORKSPACE } from '../seed/setup.js';
import type { Db } from '../storage/db.js';
import { operatorStore } from '../storage/operator.js';
import { createApiKey, createUser, createWorkspace } from './actions.js';
import { importCollectionNames, importDocument } from './import.js';

export async function isEmpty(db: Db): Promise<boolean> {
  const rows = await db.query('select 1 from workspaces limit 1');
  return rows.length === 0;
}

export interface DemoWorkspace {
  workspaceId: string;
  apiKey: string;
  created: Record<string, number>;
}

export async function createDemoWorkspace(
  db: Db,
  options: { suppliers?: number } = {},
): Promise<DemoWorkspace> {
  // The service's own work: no request.
  const store = operatorStore(db, null);
  const workspace = JSON.parse(await createWorkspace(store, { ...DEMO_WORKSPACE }));
  const user = JSON.parse(await createUser(store, workspace.id, { ...DEMO_ADMIN }));
  const key = JSON.parse(
    await createApiKey(store, workspace.id, {
      name: 'Demo key (every scope)',
      scopes: [...SCOPES],
      created_by: user.id,
    }),
  );
  const document = generateSeedDocument({ size: { suppliers: options.suppliers ?? 60 }, seed: 20_26 });
  const known = new Set(importCollectionNames());
  const supported = Object.fromEntries(Object.entries(document).filter(([name]) => known.has(name)));
  const created = await importDocument(store, workspace.id, supported);
  return { workspaceId: workspace.id, apiKey: key.secret, created };
}

/**
 * Renders the PDF of every pending report of the workspace, newest first (the order the API lists them), one
 * at a time, letting requests in between: a newcomer's first PDF download works (P119). Stops before the next
 * report once `signal` is aborted. Answers how many were rendered.
 */
export async function renderPendingReports(
  db: Db,
  objects: ObjectStorage,
  workspaceId: string,
  signal: AbortSignal,
): Promise<number> {
  const store = operatorStore(db, null);
  const pending = await (await store.read(workspaceId)).query<{ id: string }>(
    'select id from reports where workspace_id = $ws and pdf_object_key is null order by created_at desc, id desc',
  );
  let rendered = 0;
  for (const { id } of pending) {
    await yieldToRequests();
    if (signal.aborted) break;
    await renderReport(store, objects, workspaceId, id);
    rendered++;
  }
  return rendered;
}

/** Where the secrets of a first start go when no terminal shows them: in DATA_DIR, readable by its owner only. */
export const FIRST_START_FILE = 'first-start-secrets.txt';
/** The log line (its `msg`; `file` holds the path) saying where they went. */
export const SECRETS_FILE_MESSAGE =
  'secrets shown once (admin token, demo API key) written to this file, readable by its owner only: keep them elsewhere, then delete it';

/**
 * Shows secrets once (P116): on standard error when it is a terminal (a person started the process), else in
 * a 0600 file in `dataDir` whose path alone is logged. Never on standard output, which log collectors read.
 */
export function showSecretsOnce(text: string, options: { dataDir: string; logger: Logger }): void {
  if (process.stderr.isTTY) {
    process.stderr.write(text);
    return;
  }
  const file = join(options.dataDir, FIRST_START_FILE);
  // A new file each time (an older one may have other permissions), never through a link planted there.
  rmSync(file, { force: true });
  writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
  options.logger.warn({ file }, SECRETS_FILE_MESSAGE);
}

// First start of an empty embedded store: a demo workspace full of realistic data, a key with every scope,
// and a line to paste. The secrets are printed once and never stored in clear.
import { SCOPES } from '../schema/fields.js';
import type { Db } from '../storage/db.js';
import { importCollectionNames, importDocument } from './import.js';
import { createApiKey, createUser, createWorkspace } from './operations.js';
import { generateSeedDocument } from './seed/index.js';
import { DEMO_ADMIN, DEMO_WORKSPACE } from './seed/setup.js';

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
  const op = { db, allowInsecureWebhookUrls: false };
  const workspace = JSON.parse(await createWorkspace(op, { ...DEMO_WORKSPACE }));
  const user = JSON.parse(await createUser(op, workspace.id, { ...DEMO_ADMIN }));
  const key = JSON.parse(
    await createApiKey(op, workspace.id, {
      name: 'Demo key (every scope)',
      scopes: [...SCOPES],
      created_by: user.id,
    }),
  );
  const document = generateSeedDocument({ size: { suppliers: options.suppliers ?? 60 }, seed: 20_26 });
  const known = new Set(importCollectionNames());
  const supported = Object.fromEntries(Object.entries(document).filter(([name]) => known.has(name)));
  const created = await importDocument(db, workspace.id, supported);
  return { workspaceId: workspace.id, apiKey: key.secret, created };
}

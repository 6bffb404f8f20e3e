#!/usr/bin/env node
// Part of `npm run build`: the embedded store's initialised, migrated cluster that a new store starts from
// (src/storage/embedded-template.ts). Skipped when the one for this PGlite and these migrations exists.
import { existsSync } from 'node:fs';
import { relative } from 'node:path';

const { openEmbedded } = await import('../dist/src/storage/db.js');
const { migrate } = await import('../dist/src/storage/migrate.js');
const { saveTemplate, templatePath } = await import('../dist/src/storage/embedded-template.js');

if (!existsSync(templatePath())) {
  const started = performance.now();
  const db = await openEmbedded(undefined, { template: false });
  await migrate(db);
  const path = saveTemplate(await db.dumpDataDir());
  await db.close();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`Embedded store template: ${relative(process.cwd(), path)} (built in ${seconds} s)`);
}

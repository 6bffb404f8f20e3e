// A new embedded store starts as a copy of an initialised, migrated cluster made once by `npm run build`
// (scripts/embedded-template.mjs). PGlite's initdb costs about 2 s of CPU at every first start and in every
// in-memory test database; loading the cluster from its tarball costs about 0.5 s. The file holds the
// schema only, never data or secrets, and its name carries a hash of the PGlite version and the
// migrations, so a stale one is never used: without a matching file the store runs initdb and the
// migrations as before.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMigrations } from './migrations.js';

const PREFIX = 'pglite-template-';
const here = dirname(fileURLToPath(import.meta.url));

function pgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Where the template of this PGlite version and these migrations is (it may not exist). */
export function templatePath(): string {
  const hash = createHash('sha256').update(pgliteVersion());
  for (const migration of loadMigrations()) hash.update(`\0${migration.name}\0${migration.sql}`);
  return join(here, `${PREFIX}${hash.digest('hex').slice(0, 16)}.tar.gz`);
}

/** The template as PGlite's `loadDataDir` takes it, or undefined when it has not been built. */
export function readTemplate(): Blob | undefined {
  const path = templatePath();
  return existsSync(path) ? new Blob([readFileSync(path)]) : undefined;
}

/** Writes the template (atomically) and removes those of other versions. */
export function saveTemplate(tarball: Buffer): string {
  const path = templatePath();
  for (const name of readdirSync(here))
    if (name.startsWith(PREFIX) && join(here, name) !== path) rmSync(join(here, name), { force: true });
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, tarball);
  renameSync(partial, path);
  return path;
}

// The SQL migrations as files: numbered, append-only, applied in order by migrate.ts. Apart from the runner so
// that the embedded template (whose name hashes them) reads them without the database layer.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function migrationsDir(): string {
  // Compiled code runs from dist/src/storage; the SQL files stay in src/storage/migrations.
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, 'migrations'), join(here, '../../../src/storage/migrations')]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('SQL migrations directory not found');
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function loadMigrations(): Migration[] {
  const dir = migrationsDir();
  return readdirSync(dir)
    .filter((file) => /^\d{4}_.+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file,
      sql: readFileSync(join(dir, file), 'utf8'),
    }));
}

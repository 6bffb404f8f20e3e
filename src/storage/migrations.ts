// The SQL migrations as files: numbered, append-only, applied in order by migrate.ts. Apart from the runner so
// that the embedded template (whose name hashes them) reads them without the database layer.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function migrationsDir(): string {
  // The SQL files live in src/storage/migrations; `npm run build` copies them beside the compiled code
  // (scripts/runtime-assets.mjs), so that dist/ runs without src/.
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
  if (!existsSync(dir))
    throw new Error(`SQL migrations directory not found: ${dir} (the build copies it there: npm run build)`);
  return dir;
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

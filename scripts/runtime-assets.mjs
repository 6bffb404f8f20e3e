#!/usr/bin/env node
// Part of `npm run build`: the files the compiled service reads at run time that tsc does not emit. They are
// copied next to the code that reads them, so that dist/ plus the production dependencies is the whole
// application (the package's `files`, what `npm pack` and the container image ship).
import { cpSync, rmSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const assets = [
  // The SQL migrations (src/storage/migrations.ts reads them beside itself). Mirrored, so that a migration
  // deleted from src/ does not live on in dist/.
  ['src/storage/migrations', 'dist/src/storage/migrations'],
];
for (const [from, to] of assets) {
  rmSync(new URL(to, root), { recursive: true, force: true });
  cpSync(new URL(from, root), new URL(to, root), { recursive: true });
}

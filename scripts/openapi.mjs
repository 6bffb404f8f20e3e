#!/usr/bin/env node
// Writes the OpenAPI documents generated from the route tables (run after `npm run build`): the public API's
// to openapi.json and the management listener's to openapi.admin.json. `--check` writes nothing and exits 1
// when a committed file differs from what the code generates: CI runs it, so the committed documents cannot
// drift from the code. `--check DIR` checks the files of another directory instead.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const { apiDocumentText } = await import('../dist/src/openapi/document.js');
const { adminDocumentText } = await import('../dist/src/openapi/admin-document.js');
const [mode, dir, ...extra] = process.argv.slice(2);
if (
  (mode !== undefined && mode !== '--check') ||
  (dir !== undefined && mode === undefined) ||
  extra.length > 0
) {
  console.error('usage: node scripts/openapi.mjs [--check [DIR]]');
  process.exit(2);
}
const folder = dir === undefined ? new URL('..', import.meta.url).pathname : dir;
const documents = [
  ['openapi.json', apiDocumentText()],
  ['openapi.admin.json', adminDocumentText()],
];

let stale = false;
for (const [name, generated] of documents) {
  const target = join(folder, name);
  if (mode === '--check') {
    let committed = '';
    try {
      committed = readFileSync(target, 'utf8');
    } catch {
      // missing: reported below like any difference
    }
    if (committed === generated) console.log(`${target} matches the code.`);
    else {
      console.error(`${target} is out of date: run \`npm run openapi\` and commit the result.`);
      stale = true;
    }
  } else {
    writeFileSync(target, generated);
    console.log(`wrote ${target} (${generated.length} bytes)`);
  }
}
if (stale) process.exit(1);

#!/usr/bin/env node
// Writes the OpenAPI document generated from the route tables to openapi.json (run after `npm run build`).
// `--check [file]` writes nothing and exits 1 when the committed file (or `file`) differs from what the code
// generates: `npm run verify` runs it, so the committed document cannot drift from the code.
import { readFileSync, writeFileSync } from 'node:fs';

const { apiDocumentText } = await import('../dist/src/openapi/reference.js');
const generated = apiDocumentText();
const [mode, file] = process.argv.slice(2);
if (mode !== undefined && mode !== '--check') {
  console.error('usage: node scripts/openapi.mjs [--check [file]]');
  process.exit(2);
}
const target = file ?? new URL('../openapi.json', import.meta.url).pathname;

if (mode === '--check') {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing: reported below like any difference
  }
  if (committed !== generated) {
    console.error(`${target} is out of date: run \`npm run openapi\` and commit the result.`);
    process.exit(1);
  }
  console.log(`${target} matches the code.`);
} else {
  writeFileSync(target, generated);
  console.log(`wrote ${target} (${generated.length} bytes)`);
}

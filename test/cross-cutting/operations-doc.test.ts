// management-api.md "Process and configuration"; issue 5 "docs/operations.md: every setting": the settings tables
// of the README and of docs/operations.md name exactly the variables the process reads (src/config.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { settingVariables } from '../../src/config.js';

/** The variables named in the first column of the markdown table under `heading` (`A` / `B` cells name two). */
function documented(file: string, heading: string): string[] {
  const text = readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8');
  const section = text.slice(text.indexOf(heading));
  const table = section.slice(section.indexOf('\n|')).split('\n\n')[0] as string;
  const rows = table.split('\n').slice(3);
  return rows
    .flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z_]+)`/g)].map((m) => m[1] as string))
    .sort();
}

test('docs/operations.md and the README document every setting src/config.ts reads, and no other', () => {
  const read = settingVariables();
  assert.ok(read.includes('DATABASE_URL') && read.length >= 10, read.join(', '));
  assert.deepEqual(documented('docs/operations.md', '## Settings'), read);
  assert.deepEqual(documented('README.md', '## Configuration'), read);
});

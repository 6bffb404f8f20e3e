#!/usr/bin/env node
// A nightly asset sync: upserts the assets of a CSV file through PUT /assets in batches of 500 (the API's
// maximum), then prints the totals. Items are matched on (source, cloud_provider, external_id), so running
// it again with the same file changes nothing and reports 0 created, 0 updated.
//
//   TPRM_API_KEY=tprm_… node examples/asset-sync.mjs examples/assets.sample.csv [--source manual|cloud]
//                                                    [--cloud-provider aws|gcp|azure|oci]
//
// Settings: TPRM_API_KEY (required, with assets:write), TPRM_API_URL (default http://127.0.0.1:8080/v1).
// Output: one line per batch on stderr, each skipped row on stderr, and the totals as one JSON line on stdout:
// {"rows":…,"batches":…,"created":…,"updated":…,"skipped":…}.
//
// The CSV subset read here (no CSV library): UTF-8, one record per line, fields separated by commas, no
// quoting, so a field cannot contain a comma, a double quote or a line break. The first line names the
// columns, which are the asset fields of PUT /assets (external_id, name, asset_type, technical_criticality,
// exposure, region); an empty cell is null (no value). A line with a double quote or with the wrong number
// of fields is skipped and reported, like an item the API skips.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createClient } from '@tprm/client';

const BATCH_SIZE = 500;

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { source: { type: 'string', default: 'manual' }, 'cloud-provider': { type: 'string' } },
});
const apiKey = process.env.TPRM_API_KEY;
if (!apiKey || positionals.length !== 1) {
  console.error(
    'usage: TPRM_API_KEY=… node examples/asset-sync.mjs FILE.csv [--source …] [--cloud-provider …]',
  );
  process.exit(2);
}
const client = createClient({ baseUrl: process.env.TPRM_API_URL ?? 'http://127.0.0.1:8080/v1', apiKey });

/** The rows as objects keyed by the header's column names, and the lines that could not be read. */
function readCsv(text) {
  const [header, ...lines] = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const columns = header.split(',').map((name) => name.trim());
  const rows = [];
  const rejected = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const cells = line.split(',');
    const where = `line ${index + 2}`;
    if (line.includes('"')) rejected.push({ external_id: where, reason: 'quoted fields are not supported' });
    else if (cells.length !== columns.length)
      rejected.push({
        external_id: where,
        reason: `${cells.length} fields, the header has ${columns.length}`,
      });
    else rows.push(Object.fromEntries(columns.map((name, i) => [name, cells[i].trim() || null])));
  });
  return { rows, rejected };
}

const { rows, rejected } = readCsv(readFileSync(positionals[0], 'utf8'));
const totals = {
  rows: rows.length + rejected.length,
  batches: 0,
  created: 0,
  updated: 0,
  skipped: rejected.length,
};
for (const skip of rejected) console.error(`skipped ${skip.external_id}: ${skip.reason}`);

for (let start = 0; start < rows.length; start += BATCH_SIZE) {
  const result = await client.assets.upsert({
    source: flags.source,
    ...(flags['cloud-provider'] ? { cloud_provider: flags['cloud-provider'] } : {}),
    assets: rows.slice(start, start + BATCH_SIZE),
  });
  totals.batches++;
  totals.created += result.created;
  totals.updated += result.updated;
  totals.skipped += result.skipped.length;
  console.error(
    `batch ${totals.batches}: ${Math.min(BATCH_SIZE, rows.length - start)} assets, ${result.created} created, ` +
      `${result.updated} updated, ${result.skipped.length} skipped`,
  );
  for (const skip of result.skipped) console.error(`skipped ${skip.external_id}: ${skip.reason}`);
}
console.log(JSON.stringify(totals));

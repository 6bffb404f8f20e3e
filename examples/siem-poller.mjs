#!/usr/bin/env node
// A SIEM poller: streams the workspace's audit log to stdout as NDJSON (one entry per line, oldest first),
// keeps its place in a cursor file, and resumes from it: each run prints only the entries it has not printed
// before. A page is written out before its cursor is saved, so a crash in between repeats that page on the
// next run rather than losing it (at least once: the SIEM can deduplicate on the entry's `id`).
//
//   TPRM_API_KEY=tprm_… node examples/siem-poller.mjs [--once] [--cursor-file FILE] [--interval SECONDS]
//
// Settings: TPRM_API_KEY (required, with audit:read), TPRM_API_URL (default http://127.0.0.1:8080/v1),
// CURSOR_FILE (default ./audit-cursor.txt), POLL_INTERVAL (seconds between polls, default 30). The flags
// override them; --once reads what is there and exits. Progress goes to stderr, entries to stdout.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createClient } from '@tprm/client';

const { values: flags } = parseArgs({
  options: {
    once: { type: 'boolean', default: false },
    'cursor-file': { type: 'string' },
    interval: { type: 'string' },
  },
});
const apiKey = process.env.TPRM_API_KEY;
if (!apiKey) {
  console.error('Set TPRM_API_KEY to an API key with the audit:read scope.');
  process.exit(2);
}
const cursorFile = flags['cursor-file'] ?? process.env.CURSOR_FILE ?? 'audit-cursor.txt';
const intervalMs = Number(flags.interval ?? process.env.POLL_INTERVAL ?? 30) * 1000;
const client = createClient({ baseUrl: process.env.TPRM_API_URL ?? 'http://127.0.0.1:8080/v1', apiKey });

function readCursor() {
  try {
    return readFileSync(cursorFile, 'utf8').trim() || undefined;
  } catch (error) {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Replaces the file in one step, so a crash never leaves half a cursor behind. */
function saveCursor(cursor) {
  writeFileSync(`${cursorFile}.tmp`, `${cursor}\n`);
  renameSync(`${cursorFile}.tmp`, cursorFile);
}

const write = (text) =>
  new Promise((resolve, reject) => process.stdout.write(text, (e) => (e ? reject(e) : resolve())));

// A signal ends the run after the page in hand (its cursor saved), or at once while waiting between polls.
let stopping = false;
let wake = () => {};
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    stopping = true;
    wake();
  });

/** Prints every entry after the stored cursor, saving the cursor after each page. */
async function drain() {
  let printed = 0;
  for await (const page of client.auditLogs.list({ limit: 200, cursor: readCursor() }).pages()) {
    if (page.data.length > 0) {
      await write(page.data.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
      // The feed sets next_cursor on every page with entries, the last one included.
      saveCursor(page.meta.next_cursor);
      printed += page.data.length;
    }
    if (stopping) break;
  }
  return printed;
}

for (;;) {
  try {
    const printed = await drain();
    console.error(`siem-poller: ${printed} new audit entries`);
  } catch (error) {
    // The SDK has already retried what can be retried; a later poll starts again from the saved cursor.
    console.error(`siem-poller: ${error.name}: ${error.message}`);
    if (flags.once) process.exit(1);
  }
  if (flags.once || stopping) break;
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, intervalMs);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  if (stopping) break;
}

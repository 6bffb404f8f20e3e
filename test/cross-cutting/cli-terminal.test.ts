// The tprm command at a terminal (docs/decisions.md P106): whatever the server holds or answers, its control
// characters are shown escaped, never written raw; a 429 says when to retry. The real command against the
// real management API, whose records can still hold control characters (a workspace name, an endpoint
// description stored before the server refused them, a field name echoed in a 422).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { useCliHarness } from '../support/cli.js';

const { h, tprm, ok } = useCliHarness();

/** The control characters (C0, DEL, C1) of `text` other than the line breaks of the output's own layout. */
const rawControls = (text: string) =>
  [...text].filter((ch) => {
    const code = ch.codePointAt(0) as number;
    return ch !== '\n' && (code < 0x20 || (code >= 0x7f && code <= 0x9f));
  });

// Retitles the terminal, rings, clears the screen, starts a new line, then CSI (C1) and DEL.
const HOSTILE = 'Evil\u001b]0;pwned\u0007\u001b[2J\r\n\tLine\u009b31m\u007fEnd';
// As a table cell or a record's value shows it: each escape visible, the line break read as a space.
const SHOWN = 'Evil\\x1b]0;pwned\\x07\\x1b[2J Line\\x9b31m\\x7fEnd';

test('a workspace name and a stored endpoint description: tables and records show them escaped; --json reads back the same text', async () => {
  const created = await ok(['workspaces', 'create', '--name', HOSTILE, '--plan', 'enterprise', '--json']);
  assert.deepEqual(rawControls(created.stdout), []);
  assert.equal(created.json.name, HOSTILE);
  const record = await ok(['workspaces', 'get', created.json.id]);
  assert.deepEqual(rawControls(record.stdout), []);
  assert.equal(/^name +(.*)$/m.exec(record.stdout)?.[1], SHOWN);

  // An endpoint description stored before the server refused control characters.
  const endpoint = await h.adminClient.createWebhookEndpoint({
    params: { id: created.json.id },
    body: { url: 'https://hooks.example.com/legacy', events: ['alert.created'] },
  });
  await h.db.query('update webhook_endpoints set description = $2 where id = $1', [endpoint.id, HOSTILE]);
  const table = await ok(['endpoints', 'list', created.json.id]);
  assert.deepEqual(rawControls(table.stdout), []);
  assert.ok(table.stdout.includes(` ${SHOWN} `), table.stdout);
  assert.equal(table.stdout.split('\n').length, 3, 'a header, one row, the final line break');
});

test('an error naming what the request held: stderr shows it escaped, as text and as JSON', async () => {
  const ws = await h.adminClient.createWorkspace({ body: { name: 'Errors', plan: 'enterprise' } });
  // A collection name that would start a line of its own and print a fake note.
  const collection = '\u001b[31mfake\u009b\r\nnote: all good';
  const input = JSON.stringify({ [collection]: [] });
  const text = await tprm(['import', ws.id, '-'], { input });
  assert.equal(text.code, 1);
  assert.deepEqual(rawControls(text.stderr), []);
  assert.match(text.stderr, /^error: .* \(validation_failed, HTTP 422\)\n/);
  assert.ok(
    text.stderr.includes('\n  \\x1b[31mfake\\x9b\\x0d\\x0anote: all good: is not a known collection\n'),
    text.stderr,
  );
  assert.doesNotMatch(text.stderr, /^note:/m);
  const json = await tprm(['import', ws.id, '-', '--json'], { input });
  assert.equal(json.code, 1);
  assert.deepEqual(rawControls(json.stderr), []);
  assert.deepEqual(Object.keys(JSON.parse(json.stderr).error.details.fields), [collection]);
});

test("a 429 says when to retry, from the answer's Retry-After", async (t) => {
  const server = createServer((_req, res) =>
    res
      .writeHead(429, { 'content-type': 'application/json', 'retry-after': '42' })
      .end(JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'Too many test events.' } })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const run = await tprm(['endpoints', 'test', randomUUID(), '--event', 'alert.created'], {
    env: { ADMIN_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
  });
  assert.equal(run.code, 1);
  assert.equal(
    run.stderr,
    'error: Too many test events. (rate_limit_exceeded, HTTP 429)\nnote: retry after 42 seconds\n',
  );
});

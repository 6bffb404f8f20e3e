// P161: the reference's introduction (openapi.json `info.description`) and the README say that every POST needs
// an Idempotency-Key, with a copy-paste way to make one, before their first POST.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../../${name}`, import.meta.url)), 'utf8');

function saysItFirst(text: string, where: string) {
  const firstPost = text.search(/-X POST|curl -s -X POST/);
  assert.ok(firstPost > 0, `${where} shows a POST`);
  const before = text.slice(0, firstPost);
  assert.match(before, /every `?POST`?\s+(also\s+)?needs?\s+an\s+`Idempotency-Key`\s+header/i, where);
  assert.match(before, /uuidgen/, where);
  assert.match(before, /node -e "console\.log\(crypto\.randomUUID\(\)\)"/, where);
  assert.match(
    text.slice(firstPost, firstPost + 200),
    /Idempotency-Key: \$\(uuidgen\)/,
    `${where}: the POST carries one`,
  );
}

describe('Idempotency-Key before the first POST (P161)', () => {
  test("the reference's introduction", () => {
    saysItFirst(JSON.parse(root('openapi.json')).info.description, 'openapi.json info.description');
  });
  test("the README's quickstart", () => {
    saysItFirst(root('README.md'), 'README.md');
  });
});

// What users read cites no decision of this project or of its specification (P123): the decisions are the
// developers' record, not something a reader of the API reference, an agent or a client handling an error can
// look up. The OpenAPI documents as served, and every string of the source that can reach a user (error
// messages, descriptions, CLI text, MCP tool descriptions), are checked; comments may cite them. The MCP tool
// list as an agent receives it is checked in mcp.test.ts.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { useHarness } from '../support/harness.js';
import { CITATION, stringLiterals } from '../support/string-literals.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every string of a JSON value, with where it is. */
function strings(value: unknown, path = '#'): { path: string; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, child]) => [
      ...strings(key, `${path} (key)`),
      ...strings(child, `${path}/${key}`),
    ]);
  return [];
}

describe('user-facing text cites no decision', () => {
  const { h } = useHarness();

  test('the OpenAPI documents served on both listeners', async () => {
    const served = {
      public: (await h.api('GET', '/openapi.json', { key: null })).body,
      admin: (await h.admin('GET', '/openapi.json', undefined, null)).body,
    };
    for (const [listener, text] of Object.entries(served)) {
      const cited = strings(JSON.parse(text)).filter(({ text }) => CITATION.test(text));
      assert.deepEqual(cited, [], listener);
    }
  });

  test('every string of src/ and the SDK: error messages, descriptions, CLI and MCP text', () => {
    const files = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'sdk/src'))];
    let scanned = 0;
    const cited: string[] = [];
    for (const file of files) {
      for (const { line, text } of stringLiterals(readFileSync(file, 'utf8'))) {
        scanned++;
        if (CITATION.test(text)) cited.push(`${file.slice(ROOT.length)}:${line}: ${text.slice(0, 120)}`);
      }
    }
    assert.deepEqual(cited, []);
    assert.ok(scanned > 5000, `${scanned} strings scanned`);
  });

  test('the scan finds a citation in a string, and none in a comment or a regular expression', () => {
    const source = [
      '// decision 40: refused',
      '/* (P83) */',
      "const a = 'rejected (decision 40)';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a template string, scanned as text
      'const b = `rows ${limit} per scope (decisions 19, 20)`;',
      'const c = /P\\d+ "decision 1"/.test(x) / 2;',
      "throw invalidRequest('see risk-data-api.md');",
    ].join('\n');
    const found = stringLiterals(source)
      .filter(({ text }) => CITATION.test(text))
      .map(({ line }) => line);
    assert.deepEqual(found, [3, 4, 6]);
  });
});

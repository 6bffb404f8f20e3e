// The CLI's help names the management API call each command makes, "(POST /admin/workspaces)". The help is
// built without loading the contracts (tprm --help stays light), so the text is checked here against them:
// every call the help names is an operation of the admin listener, by method and path.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openApiPath, PATH_PREFIX } from '../../src/contract/operation.js';
import { adminOperations } from '../../src/management/admin-operations.js';

const commands = join(import.meta.dirname, '../../../src/cli/commands');

/** Every "(METHOD /admin/…" the CLI's sources name, with the file it is in. */
function namedCalls(): { file: string; call: string }[] {
  return readdirSync(commands)
    .filter((name) => name.endsWith('.ts'))
    .flatMap((file) =>
      [
        ...readFileSync(join(commands, file), 'utf8').matchAll(
          /\((GET|POST|PUT|PATCH|DELETE) (\/admin\/[^\s),;]+)/g,
        ),
      ].map((match) => ({ file, call: `${match[1]} ${match[2]}` })),
    );
}

describe('CLI help', () => {
  test('every management call the help names is an admin operation, by method and path', () => {
    const operations = new Set(
      Object.values(adminOperations).map(
        (operation) => `${operation.method} ${PATH_PREFIX.operator}${openApiPath(operation.path)}`,
      ),
    );
    const named = namedCalls();
    assert.ok(named.length >= 20, `calls found in the help: ${named.length}`);
    const unknown = named
      .filter(({ call }) => !operations.has(call))
      .map(({ file, call }) => `${file}: ${call}`);
    assert.deepEqual(unknown, []);
  });
});

// The README's `npm install` runs no package's install script unless the project reviewed it: every package
// of the lock file that has one is named in package.json's `allowScripts`, which npm reads before running any
// (P78). Today that is core-js (a dependency of redoc's bundle, whose postinstall only prints a banner), denied.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const ROOT = new URL('../../../', import.meta.url);
const read = (file: string) => JSON.parse(readFileSync(new URL(file, ROOT), 'utf8'));

test('every package with an install script is reviewed in allowScripts', () => {
  const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
  const { allowScripts = {} } = read('package.json') as { allowScripts?: Record<string, boolean> };
  const withScripts = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  assert.ok(withScripts.length > 0, 'the lock file says which packages have install scripts');
  const unreviewed = withScripts.filter((name) => !Object.hasOwn(allowScripts, name));
  assert.deepEqual(unreviewed, [], 'name each in package.json allowScripts (false unless it must run)');
  assert.equal(allowScripts['core-js'], false, "core-js's banner does not run");
});

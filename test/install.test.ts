// The README's `npm install`: it reports nothing to anyone. swagger-ui-dist depends on @scarf/scarf, whose
// postinstall script sends install analytics unless the root package.json opts out (`scarfSettings`); the
// project opts out in package.json itself, so no environment variable is needed (docs/decisions.md P78).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

// Compiled to dist/test/, so the repository root is two levels up.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCARF = fileURLToPath(new URL('../../node_modules/@scarf/scarf/report.js', import.meta.url));

test('the install script of @scarf/scarf sends nothing, with no opt-out in the environment', {
  skip: existsSync(SCARF) ? false : '@scarf/scarf is not installed: nothing to turn off',
}, async () => {
  // scarf's own switch for its developers (SCARF_LOCAL_PORT) sends its report to this loopback server
  // instead of scarf.sh, so an attempt is seen and nothing leaves the machine.
  const received: string[] = [];
  const server = createServer((request, response) => {
    received.push(`${request.method} ${request.url}`);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, resolve));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['SCARF_ANALYTICS', 'SCARF_NO_ANALYTICS', 'DO_NOT_TRACK']) delete env[name];
    const child = spawn(process.execPath, [SCARF], {
      // As npm runs it: from the package's directory, INIT_CWD the directory `npm install` was run in.
      cwd: dirname(SCARF),
      env: {
        ...env,
        INIT_CWD: ROOT,
        SCARF_LOCAL_PORT: String((server.address() as AddressInfo).port),
        SCARF_VERBOSE: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    await new Promise((resolve) => child.once('exit', resolve));
    assert.deepEqual(received, [], output);
    assert.match(output, /opted out|disabled/, 'scarf says why it sent nothing');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

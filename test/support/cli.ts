// Runs the real tprm command (bin/tprm.js) as a child process against a management API of the test's own
// process, in an empty working directory (no stray .env is read).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Finished, finished } from './child.js';
import { type UseHarnessOptions, useHarness } from './harness.js';

// Compiled to dist/test/support/cli.js; the launcher lives in bin/ at the project root.
const BIN = fileURLToPath(new URL('../../../bin/tprm.js', import.meta.url));

export interface Run extends Finished {
  // biome-ignore lint/suspicious/noExplicitAny: parsed --json output
  json: any;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  nodeArgs?: string[];
}

/** `tprm` and `ok` against the API `target` names when called (it is known once the test's `before` ran). */
export function tprmRunner(target: () => { adminUrl: string; adminToken: string; cwd: string }) {
  /** Runs `tprm args…` asynchronously (the API answers from this very process, so never spawnSync). */
  async function tprm(args: string[], options: RunOptions = {}): Promise<Run> {
    const { adminUrl, adminToken, cwd } = target();
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of ['NODE_TEST_CONTEXT', 'DATABASE_URL', 'DATA_DIR', 'ADMIN_URL', 'ADMIN_TOKEN'])
      delete env[name];
    Object.assign(env, { ADMIN_URL: adminUrl, ADMIN_TOKEN: adminToken }, options.env);
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
    const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
      cwd,
      env,
      stdio: 'pipe',
    });
    child.stdin?.end(options.input ?? '');
    const run = await finished(child);
    let json: unknown;
    try {
      json = JSON.parse(run.stdout);
    } catch {
      json = undefined;
    }
    return { ...run, json };
  }

  /** Runs and expects success: the failure message shows what the CLI said. */
  async function ok(args: string[], options?: RunOptions): Promise<Run> {
    const run = await tprm(args, options);
    assert.equal(run.code, 0, `tprm ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    return run;
  }

  return { tprm, ok };
}

/**
 * A harness whose management API listens on loopback, and `tprm`/`ok` against it, run in an empty working
 * directory (`dir()`, known once the file's `before` ran) so that no stray .env is read. `options` are the
 * harness's (its settings, say).
 */
export function useCliHarness(options: UseHarnessOptions<[]> = {}) {
  let adminUrl = '';
  let cwd = '';
  const { h } = useHarness(options, async () => {
    await h.adminApp.listen({ port: 0, host: '127.0.0.1' });
    adminUrl = `http://127.0.0.1:${(h.adminApp.server.address() as AddressInfo).port}`;
    cwd = await mkdtemp(join(tmpdir(), 'tprm-cli-'));
  });
  return { h, dir: () => cwd, ...tprmRunner(() => ({ adminUrl, adminToken: h.adminToken, cwd })) };
}

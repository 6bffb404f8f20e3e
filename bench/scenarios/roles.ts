// The pieces of the scenarios that run tprm-api processes of their own (a producer, a worker) and drive their
// management API: webhooks and sinks.
import type { BenchEnv } from '../scenario.js';
import { freePort } from '../servers.js';

/** The `p`th percentile of `values` (nearest rank). */
export const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

/** A tprm-api process of `role` whose management API this scenario drives. */
export async function spawnRole(
  env: BenchEnv,
  scenario: string,
  role: 'api' | 'worker',
  adminToken: string,
  settings: Record<string, string> = {},
) {
  const adminPort = await freePort();
  const handle = await env.spawnApi({
    name: `${scenario}-${role}`,
    readyUrl: `http://127.0.0.1:${adminPort}/readyz`,
    env: {
      ROLE: role,
      ADMIN_PORT: String(adminPort),
      ADMIN_TOKEN: adminToken,
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
      ...settings,
    },
  });
  return { handle, admin: `http://127.0.0.1:${adminPort}/admin` };
}

export async function call(admin: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${admin}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as { id: string }) : undefined;
}

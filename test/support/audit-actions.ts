// Drives every audit action the service writes (src/storage/audit.ts AUDIT_ACTIONS) through the public API and
// the management API, in a new workspace, with personal values, URLs and secrets in what is sent: the audit
// feed's tests read what those writes left in the trail (test/slices/audit-logs.test.ts P72, and the OCSF form,
// test/slices/ocsf.test.ts).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SCOPES } from '../../src/schema/fields.js';
import type { Harness } from './harness.js';
import { eventually } from './receiver.js';

export interface EveryActionWorkspace {
  wsId: string;
  /** The workspace's user, who created the key the public writes used. */
  userId: string;
  /** Values sent in the writes that no entry may hold (secrets, URLs, names, e-mail addresses). */
  said: string[];
}

export async function writeEveryAuditAction(h: Harness): Promise<EveryActionWorkspace> {
  const token = `tok_${randomUUID()}`;
  const said: string[] = [token, 'https://', 'Lovelace', 'Babbage', 'Hopper', 'people.example'];
  const admin = async (method: string, url: string, body?: unknown, status = 200) => {
    const res = await h.admin(method, url, body);
    assert.equal(res.status, status, `${method} ${url}: ${res.body}`);
    return res.json;
  };
  const workspace = await admin(
    'POST',
    '/admin/workspaces',
    { name: 'Lovelace Analytics', plan: 'enterprise' },
    201,
  );
  const wsId = workspace.id as string;
  await admin('PATCH', `/admin/workspaces/${wsId}`, { name: 'Lovelace & Babbage', assessment_quota: 5 });
  const user = await admin(
    'POST',
    `/admin/workspaces/${wsId}/users`,
    {
      name: 'Ada Lovelace',
      email: 'ada.lovelace@people.example',
    },
    201,
  );
  const key = await admin(
    'POST',
    `/admin/workspaces/${wsId}/api-keys`,
    {
      name: "Ada Lovelace's laptop",
      scopes: SCOPES,
      created_by: user.id,
    },
    201,
  );
  const spare = await h.key(wsId, user.id, ['suppliers:read']);
  await admin('POST', `/admin/api-keys/${spare.id}/revoke`);
  said.push(key.secret, spare.secret);

  const [supplierId, reportId, planId, itemId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  await admin('POST', `/admin/workspaces/${wsId}/import`, {
    suppliers: [
      {
        id: supplierId,
        name: 'Babbage Engines',
        email: 'office@babbage.people.example',
        contacts: [{ name: 'Charles Babbage', email: 'charles@babbage.people.example' }],
      },
    ],
    reports: [{ id: reportId, supplier_id: supplierId, title: 'Babbage report', report_type: 'assessment' }],
    action_plans: [{ id: planId, supplier_id: supplierId, title: 'Babbage plan' }],
    action_plan_items: [{ id: itemId, action_plan_id: planId, title: 'Babbage item', status: 'pending' }],
  });
  const api = async (method: string, url: string, body: unknown, status = 200) => {
    const res = await h.api(method, url, {
      key: key.secret,
      body,
      headers: method === 'POST' ? { 'idempotency-key': randomUUID() } : {},
    });
    assert.equal(res.status, status, `${method} ${url}: ${res.body}`);
    return res.json;
  };
  await api('POST', '/suppliers', { name: 'Hopper Systems', email: 'grace@hopper.people.example' }, 201);
  const assessment = await api(
    'POST',
    '/assessments',
    { supplier_id: supplierId, assessment_type: 'supplier' },
    201,
  );
  await admin('POST', `/admin/assessments/${assessment.id}/status`, { status: 'sent' });
  await admin('POST', `/admin/assessments/${assessment.id}/status`, {
    status: 'completed',
    decision: 'approved',
  });
  await admin('POST', `/admin/reports/${reportId}/render`, {});
  await api('PUT', '/assets', {
    source: 'manual',
    assets: [{ external_id: 'lovelace-laptop', name: "Ada Lovelace's laptop", asset_type: 'infrastructure' }],
  });
  const [asset] = (await api('GET', '/assets', undefined)).data;
  await admin('POST', `/admin/assets/${asset.id}/confirm`);
  const note = 'Called Ada Lovelace on ada.lovelace@people.example';
  await api('PATCH', `/action-plan-items/${itemId}`, { status: 'in_progress', note });
  await api('PATCH', `/action-plan-items/${itemId}`, { status: 'in_progress', note });
  await admin('POST', `/admin/action-plan-items/${itemId}/status`, {
    status: 'completed',
    note,
    user_id: user.id,
  });

  const endpoint = await admin(
    'POST',
    `/admin/workspaces/${wsId}/webhook-endpoints`,
    {
      url: `https://hooks.people.example/in?token=${token}`,
      events: ['alert.created'],
      description: "Ada Lovelace's receiver",
    },
    201,
  );
  await admin('PATCH', `/admin/webhook-endpoints/${endpoint.id}`, {
    url: `https://hooks.people.example/v2?token=${token}`,
    description: 'Hopper receiver',
  });
  const rotated = await admin('POST', `/admin/webhook-endpoints/${endpoint.id}/rotate-secret`, {});
  said.push(endpoint.signing_secret, rotated.signing_secret);
  await admin(
    'POST',
    `/admin/workspaces/${wsId}/alerts`,
    {
      scope: 'supplier',
      supplier_id: supplierId,
      severity: 'high',
      title: 'Ada Lovelace left Babbage Engines',
      body: 'Reach Charles Babbage at charles@babbage.people.example',
    },
    201,
  );
  // No worker runs here: the attempt is marked failed as a dispatcher would, so that it can be replayed.
  await h.db.query("update webhook_deliveries set status = 'failed' where workspace_id = $1", [wsId]);
  const [delivery] = (await api('GET', '/webhook-deliveries', undefined)).data;
  await admin('POST', `/admin/webhook-deliveries/${delivery.id}/replay`, {}, 201);
  await admin('POST', `/admin/webhook-endpoints/${endpoint.id}/replay`, { from: '2020-01-01T00:00:00Z' });
  await admin('DELETE', `/admin/webhook-endpoints/${endpoint.id}`, undefined, 204);
  // A test event (P81), then an endpoint the service disables (P83): its target is refused at send time,
  // so each attempt fails at once, and its run of failures is made to have begun six days ago.
  const failing = await admin(
    'POST',
    `/admin/workspaces/${wsId}/webhook-endpoints`,
    { url: `https://hooks.people.example/failing?token=${token}`, events: ['alert.created'] },
    201,
  );
  said.push(failing.signing_secret);
  await admin('POST', `/admin/webhook-endpoints/${failing.id}/test`, { event_type: 'alert.created' }, 201);
  await h.db.query(
    `update webhook_endpoints set url = 'https://127.0.0.1/refused', failing_since = now() - interval '6 days'
      where id = $1`,
    [failing.id],
  );
  await admin(
    'POST',
    `/admin/workspaces/${wsId}/alerts`,
    { scope: 'org', severity: 'low', title: 'Babbage is unreachable', body: 'Ada Lovelace noticed' },
    201,
  );
  await h.worker();
  await eventually(async () => !(await admin('GET', `/admin/webhook-endpoints/${failing.id}`)).enabled);

  // Sinks (P203-P219): registered with a credential and a URL that holds a token, changed and deleted; then one
  // the service disables as it does an endpoint (its target refused at send time, its failures six days old).
  const sink = await admin(
    'POST',
    `/admin/workspaces/${wsId}/sinks`,
    {
      kind: 'http',
      url: `https://siem.people.example/in?token=${token}`,
      credential: `Bearer ${token}`,
      sources: ['audit'],
      description: "Ada Lovelace's SIEM",
    },
    201,
  );
  await admin('PATCH', `/admin/sinks/${sink.id}`, {
    description: 'Hopper SIEM',
    credential: `Splunk ${token}`,
  });
  await admin('DELETE', `/admin/sinks/${sink.id}`, undefined, 204);
  const failingSink = await admin(
    'POST',
    `/admin/workspaces/${wsId}/sinks`,
    { kind: 'http', url: `https://siem.people.example/failing?token=${token}`, sources: ['events'] },
    201,
  );
  await h.db.query(
    `update sinks set url = 'https://127.0.0.1/refused', failing_since = now() - interval '6 days' where id = $1`,
    [failingSink.id],
  );
  await admin(
    'POST',
    `/admin/workspaces/${wsId}/alerts`,
    { scope: 'org', severity: 'low', title: 'Babbage', body: 'Ada' },
    201,
  );
  h.sinkWorker();
  await eventually(async () => !(await admin('GET', `/admin/sinks/${failingSink.id}`)).enabled);

  return { wsId, userId: user.id, said };
}

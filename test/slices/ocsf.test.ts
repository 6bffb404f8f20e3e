// The OCSF 1.8.0 form (docs/ocsf.md; P185-P192): GET /audit-logs?format=ocsf, every audit action the service
// writes validated against the classes compiled from the OCSF schema source (test/support/ocsf-schema.ts), and
// the mapping of the webhook events the service stores, for the events feed to serve.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { createClient, type Schemas } from '../../sdk/src/index.js';
import { EventTypes } from '../../src/contract/events.js';
import { AUDIT_ACTION_CLASSES } from '../../src/ocsf/audit.js';
import { OCSF_CLASSES } from '../../src/ocsf/common.js';
import { type AuditItem, auditEntryToOcsf, ocsfContext, webhookEventToOcsf } from '../../src/ocsf/index.js';
import { SCOPES } from '../../src/schema/fields.js';
import { AUDIT_ACTIONS } from '../../src/storage/audit.js';
import { packageVersion } from '../../src/version.js';
import { writeEveryAuditAction } from '../support/audit-actions.js';
import { assertError, type TestWorkspace, useHarness } from '../support/harness.js';
import { OcsfSchema, OcsfValidator, SERVICE_CLASSES } from '../support/ocsf-schema.js';

// biome-ignore lint/suspicious/noExplicitAny: OCSF events and API answers are arbitrary JSON, checked by the tests
type Json = Record<string, any>;

const validator = new OcsfValidator(new OcsfSchema(), SERVICE_CLASSES);
const assertValid = (item: unknown, what: string) =>
  assert.deepEqual(validator.problems(item), [], `${what}: ${JSON.stringify(item)}`);

let every: { wsId: string; userId: string; said: string[]; key: string };
let other: TestWorkspace;
let baseUrl: string;

const { h } = useHarness({}, async () => {
  const written = await writeEveryAuditAction(h);
  const key = await h.key(written.wsId, written.userId, SCOPES);
  every = { ...written, key: key.secret };
  other = await h.workspace();
  await h.publicApp.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(h.publicApp.server.address() as { port: number }).port}/v1`;
});

const get = (path: string, key = every.key) => h.api('GET', path, { key });

/** The whole feed in one form (it fits a page of 200). */
async function feed(format: string | null, key = every.key): Promise<Json[]> {
  const res = await get(`/audit-logs?limit=200${format ? `&format=${format}` : ''}`, key);
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.meta.has_more, false);
  return res.json.data;
}

describe('GET /audit-logs?format=ocsf', () => {
  test('every action the service writes is a valid OCSF 1.8.0 event of its class, mapped from the served entry', async () => {
    const native = await feed(null);
    const ocsf = await feed('ocsf');
    assert.equal(ocsf.length, native.length);
    const actions = new Set(native.map((entry) => entry.action));
    assert.deepEqual(
      AUDIT_ACTIONS.filter((action) => !actions.has(action)),
      [],
      'every action is written',
    );
    const context = { workspaceId: every.wsId, productVersion: packageVersion() };
    for (const [index, entry] of native.entries()) {
      const item = ocsf[index] as Json;
      assertValid(item, entry.action);
      // Mapped from the entry as the native form serves it (after its redaction, P72), and from nothing else.
      assert.deepEqual(auditEntryToOcsf(entry as AuditItem, context), item);
      const [cls, activity, otherName] = AUDIT_ACTION_CLASSES[
        entry.action as keyof typeof AUDIT_ACTION_CLASSES
      ] as readonly [keyof typeof OCSF_CLASSES, string, string?];
      assert.equal(item.class_uid, OCSF_CLASSES[cls].uid, entry.action);
      assert.equal(item.activity_name, otherName ?? `${activity[0]?.toUpperCase()}${activity.slice(1)}`);
      assert.equal(item.type_uid, item.class_uid * 100 + item.activity_id);
      assert.equal(item.time, Date.parse(entry.occurred_at));
      assert.deepEqual([item.severity_id, item.status_id], [1, 1]);
      assert.deepEqual(item.metadata.product, {
        name: 'tprm-api',
        vendor_name: 'tprm-api',
        version: packageVersion(),
      });
      assert.equal(item.metadata.version, '1.8.0');
      assert.equal(item.metadata.uid, entry.id);
      assert.equal(item.metadata.tenant_uid, every.wsId);
      // The chain: the entry's hash and its predecessor's, so a consumer can still check the trail.
      const tags = Object.fromEntries(item.metadata.tags.map((tag: Json) => [tag.name, tag.value]));
      assert.equal(tags.hash, entry.hash);
      assert.equal(tags.previous_hash, entry.previous_hash ?? undefined);
      assert.deepEqual(item.unmapped, {
        occurred_at: entry.occurred_at,
        actor_type: entry.actor_type,
        created_at: entry.created_at,
        metadata: entry.metadata,
      });
      if (entry.actor_type === 'user') {
        assert.equal(item.actor.user.uid, entry.actor_id);
        assert.equal(item.actor.user.credential_uid, entry.metadata.api_key_id);
      } else assert.equal(item.actor.app_name, 'tprm-api');
      const target = cls === 'entity_management' ? item.entity.uid : item.resources?.[0]?.uid;
      assert.equal(target, entry.target_id ?? undefined, entry.action);
    }
    // The interface each change came through: a key's write, the operator's, the worker's (P188).
    const sourceOf = (action: string) => ocsf.find((item) => item.message === action)?.src_endpoint.name;
    assert.deepEqual(['supplier.created', 'workspace.created', 'webhook_endpoint.disabled'].map(sourceOf), [
      'public-api',
      'management-api',
      'tprm-api',
    ]);
    // Both classes are used, and nothing the native form withholds appears (P72).
    assert.deepEqual([...new Set(ocsf.map((item) => item.class_uid))].sort(), [3004, 6003]);
    const text = JSON.stringify(ocsf);
    for (const value of every.said) assert.ok(!text.includes(value), `the OCSF form holds ${value}`);
  });

  test('the same envelope and cursors: a cursor of one form continues in the other (P185)', async () => {
    const native = await get('/audit-logs?limit=3');
    const ocsf = await get('/audit-logs?limit=3&format=ocsf');
    assert.deepEqual(ocsf.json.meta, native.json.meta);
    assert.deepEqual(
      ocsf.json.data.map((item: Json) => item.metadata.uid),
      native.json.data.map((entry: Json) => entry.id),
    );
    const cursor = encodeURIComponent(native.json.meta.next_cursor);
    const nextNative = await get(`/audit-logs?limit=3&cursor=${cursor}`);
    const nextOcsf = await get(`/audit-logs?limit=3&format=ocsf&cursor=${cursor}`);
    assert.equal(nextOcsf.status, 200, nextOcsf.body);
    assert.deepEqual(nextOcsf.json.meta, nextNative.json.meta);
    assert.deepEqual(
      nextOcsf.json.data.map((item: Json) => item.metadata.uid),
      nextNative.json.data.map((entry: Json) => entry.id),
    );
    // `format=native` is the default form, byte for byte; filters still bind the cursor.
    assert.equal((await get('/audit-logs?limit=3&format=native')).body, native.body);
    const filtered = await get(`/audit-logs?limit=3&format=ocsf&action=supplier.created&cursor=${cursor}`);
    assertError(filtered, 400, 'invalid_request');
    // A resumed feed's empty page echoes the cursor in both forms (decision 13).
    const all = await get('/audit-logs?limit=200&format=ocsf');
    const end = encodeURIComponent(all.json.meta.next_cursor);
    const idle = await get(`/audit-logs?format=ocsf&cursor=${end}`);
    assert.deepEqual(idle.json, {
      data: [],
      meta: { has_more: false, next_cursor: all.json.meta.next_cursor, feature_status: 'available' },
    });
  });

  test("the SDK pages the OCSF form with `format: 'ocsf'`; its items read as Schemas['OcsfEvent']", async () => {
    const client = createClient({ baseUrl, apiKey: every.key });
    const items = (await client.auditLogs
      .list({ format: 'ocsf', limit: 7 })
      .toArray()) as unknown as Schemas['OcsfEvent'][];
    assert.deepEqual(
      items.map((item) => item.metadata.uid),
      (await feed(null)).map((entry) => entry.id),
    );
    for (const item of items) assertValid(item, item.message);
  });

  test('filters apply as in the native form', async () => {
    const native = await get('/audit-logs?action=api_key.revoked');
    const ocsf = await get('/audit-logs?action=api_key.revoked&format=ocsf');
    assert.ok(native.json.data.length > 0);
    assert.deepEqual(
      ocsf.json.data.map((item: Json) => [item.metadata.uid, item.class_uid, item.activity_id]),
      native.json.data.map((entry: Json) => [entry.id, 3004, 9]),
    );
  });

  test('an unknown format is a 400 naming the parameter', async () => {
    for (const format of ['xml', 'OCSF', '', 'ocsf,native']) {
      const res = await get(`/audit-logs?format=${encodeURIComponent(format)}`);
      assertError(res, 400, 'invalid_request');
      assert.equal(res.json.error.details.parameter, 'format');
    }
  });

  test('scopes and tenancy as in the native form', async () => {
    const reader = await h.key(every.wsId, every.userId, ['suppliers:read', 'pii:read']);
    const refused = await get('/audit-logs?format=ocsf', reader.secret);
    assertError(refused, 403, 'insufficient_scope');
    assert.equal(refused.json.error.details.required_scope, 'audit:read');
    const theirs = await feed('ocsf', other.key);
    assert.ok(theirs.length > 0);
    const mine = new Set((await feed(null)).map((entry) => entry.id));
    for (const item of theirs) {
      assert.equal(item.metadata.tenant_uid, other.id);
      assert.ok(!mine.has(item.metadata.uid));
      assertValid(item, item.message);
    }
  });

  test('an imported action the service does not write is API Activity, Other, named after it', async () => {
    const id = randomUUID();
    await h.db.query("insert into workspaces (id, name, plan) values ($1, 'Moved here', 'enterprise')", [id]);
    const entryId = randomUUID();
    await h.import(id, {
      audit_logs: [
        {
          id: entryId,
          occurred_at: '2020-01-01T00:00:00.000001Z',
          action: 'vendor.archived',
          actor_type: 'user',
          actor_id: null,
          target_type: null,
          target_id: null,
          request_id: null,
          metadata: { imported: true },
        },
      ],
    });
    const user = await h.adminClient.createUser({
      params: { id },
      body: { name: 'Test User', email: 'user@test.example' },
    });
    const key = await h.key(id, user.id, ['audit:read']);
    const [item] = await feed('ocsf', key.secret);
    assertValid(item, 'imported');
    assert.deepEqual(
      [item?.metadata.uid, item?.class_uid, item?.activity_id, item?.activity_name, item?.time],
      [entryId, 6003, 99, 'vendor.archived', Date.parse('2020-01-01T00:00:00Z')],
    );
    assert.equal(item?.unmapped.occurred_at, '2020-01-01T00:00:00.000001Z');
  });

  test('the document names the OCSF form of the items, and its example is a valid OCSF event', () => {
    const doc = JSON.parse(readFileSync(new URL('../../../openapi.json', import.meta.url), 'utf8'));
    const operation = doc.paths['/audit-logs'].get;
    const format = operation.parameters.find((parameter: Json) => parameter.name === 'format');
    assert.deepEqual(format.schema.enum, ['native', 'ocsf']);
    const ocsf = operation.responses['200']['x-item-formats'].ocsf;
    assert.equal(ocsf.schema.$ref, '#/components/schemas/OcsfEvent');
    assert.ok(doc.components.schemas.OcsfEvent);
    assertValid(ocsf.example, 'the document example');
  });
});

describe('webhook events as OCSF 1.8.0 events (for the events feed)', () => {
  test('every event the service stored, of the four contract types, maps to a valid OCSF event', async () => {
    const rows = await h.db.query<{ payload: string }>(
      'select payload from events where workspace_id = $1 order by occurred_at, id',
      [every.wsId],
    );
    const payloads = rows.map((row) => JSON.parse(row.payload) as Json);
    assert.deepEqual([...new Set(payloads.map((event) => event.type))].sort(), [...EventTypes].sort());
    for (const event of payloads) {
      const item = webhookEventToOcsf(event as never, ocsfContext(every.wsId)) as Json;
      assertValid(item, event.type);
      assert.equal(item.metadata.uid, event.event_id);
      assert.equal(item.metadata.tenant_uid, event.organization_id);
      assert.equal(item.time, Date.parse(event.occurred_at));
      assert.deepEqual(item.unmapped, { occurred_at: event.occurred_at, type: event.type, data: event.data });
      const ids = Object.entries(event.data).filter(
        ([name, value]) => name.endsWith('_id') && value !== null,
      );
      assert.deepEqual(
        item.resources.map((resource: Json) => [`${resource.type}_id`, resource.uid]),
        ids,
      );
      if (event.type === 'alert.created') {
        assert.equal(item.class_uid, 2004);
        assert.equal(item.finding_info.uid, event.data.alert_id);
        const levels: Json = { low: 2, medium: 3, high: 4, critical: 5 };
        assert.equal(item.severity_id, levels[event.data.severity]);
      } else {
        assert.equal(item.class_uid, 6003);
        assert.equal(item.api.operation, event.type);
      }
    }
  });

  test('GET /events?format=ocsf: each event of the feed, as served, as a valid OCSF event, with the same cursors', async () => {
    const native = await get('/events?limit=200');
    const ocsf = await get('/events?limit=200&format=ocsf');
    assert.equal(native.status, 200, native.body);
    assert.equal(ocsf.status, 200, ocsf.body);
    assert.ok(native.json.data.length > 0);
    assert.equal(ocsf.json.data.length, native.json.data.length);
    assert.deepEqual(ocsf.json.meta, native.json.meta);
    for (const [i, event] of (native.json.data as Json[]).entries()) {
      const item = ocsf.json.data[i] as Json;
      assertValid(item, event.type);
      assert.deepEqual(item, webhookEventToOcsf(event as never, ocsfContext(every.wsId)));
    }
    const bad = await get('/events?format=cef');
    assertError(bad, 400, 'invalid_request');
    assert.equal(bad.json.error.details.parameter, 'format');
  });

  test('an export in the OCSF form: each line as the page gives it, the same last line (P185 with P193)', async () => {
    for (const path of ['/audit-logs', '/events']) {
      const stream = (format: string) =>
        h.api('GET', `${path}?format=${format}`, {
          key: every.key,
          headers: { accept: 'application/x-ndjson' },
        });
      const native = await stream('native');
      const ocsf = await stream('ocsf');
      assert.equal(ocsf.status, 200, ocsf.body);
      const split = (body: string) =>
        body
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as Json);
      const [nativeLines, ocsfLines] = [split(native.body), split(ocsf.body)];
      assert.ok(nativeLines.length > 1);
      assert.equal(ocsfLines.length, nativeLines.length);
      // The last line is the stream's end, the same in both forms.
      assert.deepEqual(ocsfLines.at(-1), nativeLines.at(-1));
      const page = await get(`${path}?limit=200&format=ocsf`);
      assert.deepEqual(ocsfLines.slice(0, -1), page.json.data);
      for (const item of ocsfLines.slice(0, -1)) assertValid(item, path);
    }
  });
});

// The two serializations of every resource (src/schema/resource.ts) give the same bytes: `json`, built by
// PostgreSQL, and `row`'s text columns joined by Node, which lists and reads by id serve on a PostgreSQL server
// (decisions P48, P124). Compared on every stored record of a seeded workspace, with and without the personal
// fields, plus text that needs escaping.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ListOperation } from '../../src/contract/list.js';
import { packing, unpackRows } from '../../src/http/packed-rows.js';
import { ApiKey, User, Workspace } from '../../src/management/schemas.js';
import { ActionPlan, ActionPlanItem } from '../../src/resources/action-plans/schema.js';
import { Alert, Insight } from '../../src/resources/alerts/schema.js';
import { Assessment, Gap } from '../../src/resources/assessments/schema.js';
import { Asset } from '../../src/resources/assets/schema.js';
import { AuditLog } from '../../src/resources/audit-logs/schema.js';
import {
  Bia,
  BusinessProcess,
  ProcessingActivity,
  ProductService,
  Threat,
} from '../../src/resources/context/schema.js';
import { publicOperations } from '../../src/resources/operations.js';
import { Report } from '../../src/resources/reports/schema.js';
import {
  CyberMatrixRow,
  OrganizationalMatrixRow,
  Risk,
  RiskAcceptance,
  RiskScorePoint,
  RiskTreatment,
} from '../../src/resources/risks/schema.js';
import { Supplier, SupplierDetail } from '../../src/resources/suppliers/schema.js';
import { WebhookDelivery, WebhookEndpoint } from '../../src/resources/webhooks/schema.js';
import type { Resource } from '../../src/schema/resource.js';
import { generateSeedDocument } from '../../src/seed/index.js';
import { useHarness } from '../support/harness.js';

const RESOURCES: Resource[] = [
  Workspace,
  User,
  ApiKey,
  Supplier,
  SupplierDetail,
  Assessment,
  Gap,
  Report,
  Asset,
  AuditLog,
  BusinessProcess,
  ProductService,
  ProcessingActivity,
  Bia,
  Threat,
  Risk,
  RiskTreatment,
  RiskAcceptance,
  RiskScorePoint,
  CyberMatrixRow,
  OrganizationalMatrixRow,
  ActionPlan,
  ActionPlanItem,
  Alert,
  Insight,
  WebhookEndpoint,
  WebhookDelivery,
];

// Characters JSON must escape, and some it must not touch.
const AWKWARD = [
  'quote " backslash \\ slash /',
  'controls \u0001\u0008\t\n\f\r\u001f and DEL \u007f',
  'line separators \u2028\u2029',
  'Ζήτα 東京 emoji 🦊 </script>',
  '',
  // Exactly the null mark of a packed row (P240), and the mark inside a string (P244).
  '\u001e',
  'record separator \u001e inside',
];

const { h } = useHarness({}, async (): Promise<void> => {
  const ws = await h.workspace();
  const seed = generateSeedDocument({ size: { suppliers: 12 }, seed: 77 });
  const { audit_logs: _audit, ...document } = seed;
  document.suppliers = [
    ...(document.suppliers ?? []),
    ...AWKWARD.map((text, i) => ({
      name: text || 'empty industry',
      industry: text,
      tags: [text || 'empty', `tag-${i}`],
      contacts: [{ name: text, email: null }],
      onboarding_data: { note: text, nested: { list: [text, 1.5, null, true] } },
      annual_spend: i % 2 ? 1234.5 : null,
    })),
  ];
  await h.import(ws.id, document);
  // A numeric NaN (which no API write accepts, but the column can hold) is not a JSON number: to_json writes it
  // as a string, and so must a page that reads numeric's own text (P246).
  await h.db.query(
    `update suppliers set annual_spend = 'NaN' where workspace_id = $1 and name = 'empty industry'`,
    [ws.id],
  );
  const endpoint = await h.admin('POST', `/admin/workspaces/${ws.id}/webhook-endpoints`, {
    url: 'https://hooks.example.com/tprm',
    events: ['alert.created'],
    description: AWKWARD[0],
  });
  assert.equal(endpoint.status, 201, endpoint.body);
  const alert = await h.admin('POST', `/admin/workspaces/${ws.id}/alerts`, {
    scope: 'org',
    severity: 'high',
    title: AWKWARD[1],
    body: AWKWARD[3],
  });
  assert.equal(alert.status, 201, alert.body);
});

for (const resource of RESOURCES) {
  test(`${resource.name}: row() renders the bytes json() builds, on every stored record`, async () => {
    for (const pii of [true, false]) {
      // The text columns a PostgreSQL server serves (PGlite runs the same SQL; it is served the JSON form).
      const shape = resource.row('t', { pii, engine: 'postgres' });
      const rows = await h.db.queryArrays(
        `select ${resource.json('t', { pii })}, ${shape.sql} from ${resource.table} t`,
      );
      assert.ok(rows.length > 0, `no ${resource.table} to compare`);
      for (const row of rows) {
        assert.equal(shape.render(row, 1), row[0]);
      }
    }
  });
}

for (const resource of RESOURCES) {
  test(`${resource.name}: a packed row renders the bytes json() builds, or is refused when a string defeats the packing (P240)`, async () => {
    for (const pii of [true, false]) {
      const shape = resource.row('t', { pii, engine: 'postgres' });
      const packed = packing(shape.cells, shape.strings);
      const rows = await h.db.queryArrays(
        `select ${resource.json('t', { pii })}, ${packed.select}, ${shape.sql} from ${resource.table} t`,
      );
      assert.ok(rows.length > 0, `no ${resource.table} to compare`);
      for (const row of rows) {
        const unpacked = unpackRows([row.slice(1, 3)], packed);
        const plain = row.slice(3) as (string | null)[];
        const defeats = shape.strings.some((i) => plain[i]?.includes('\u001f') || plain[i] === '\u001e');
        if (unpacked) {
          assert.equal(defeats, false, `packed despite ${JSON.stringify(plain)}`);
          // Rendered as a page renders it: strings quoted as they are when the row's test found them plain.
          assert.equal(shape.render(unpacked.rows[0] as (string | null)[], 0, unpacked.plain[0]), row[0]);
        } else assert.equal(defeats, true, `refused without cause: ${JSON.stringify(plain)}`);
      }
    }
  });
}

test('every stored value a list page converts keeps its text in a generated column that pages read; no other text is kept (P237, P248)', async () => {
  const rows = await h.db.query<{ table: string; column: string; type: string; generated: boolean }>(
    `select c.relname as table, a.attname as column, format_type(a.atttypid, null) as type,
            -- A view's column shows a table's (the event log's shows the events').
            a.attgenerated = 's' or c.relkind = 'v' as generated
       from pg_attribute a join pg_class c on c.oid = a.attrelid
      where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'v') and a.attnum > 0
        and not a.attisdropped`,
  );
  const columns = new Map(rows.map((row) => [`${row.table}.${row.column}`, row]));
  const converted = (type: string) => type === 'jsonb' || type.endsWith('[]') || type.startsWith('timestamp');
  const listed = new Set<Resource>(
    publicOperations.flatMap((operation) =>
      'list' in operation ? [(operation as ListOperation).list.resource] : [],
    ),
  );
  const claimed = new Set<string>();
  let kept = 0;
  for (const resource of new Set<Resource>([...RESOURCES, ...listed]))
    for (const [name, spec] of Object.entries(resource.fields)) {
      const column = columns.get(`${resource.table}.${name}`);
      if (spec.sql !== undefined || !column || !converted(column.type)) continue;
      const text = `${resource.table}.${name}_${column.type.startsWith('timestamp') ? 'iso' : 'json'}`;
      // A document is explicit either way: false where only JSON that PostgreSQL builds serves it.
      if (column.type === 'jsonb')
        assert.equal(typeof spec.keptText, 'boolean', `${resource.name}.${name}: keptText says whether`);
      // A cursor-paged list (row() on a server) converts every instant, array and document on every read.
      if (listed.has(resource)) assert.equal(spec.keptText, true, `${resource.name}.${name} is listed: kept`);
      const rowSql = resource.row('t', { pii: true, engine: 'postgres' }).sql;
      if (spec.keptText) {
        kept++;
        claimed.add(text);
        assert.equal(columns.get(text)?.generated, true, `${text} is generated`);
        assert.match(rowSql, new RegExp(`\\bt\\.${name}_(iso|json)\\b`));
        // The kept text is the value's, on every stored record (json() and row() both read it now).
        const reference = column.type.startsWith('timestamp') ? `iso(${name})` : `to_json(${name})::text`;
        const [differing] = await h.db.query<{ count: number }>(
          `select count(*)::int as count from ${resource.table}
            where ${text.split('.')[1]} is distinct from ${reference}`,
        );
        assert.equal(differing?.count, 0, `${text} differs from ${reference}`);
      } else assert.equal(columns.get(text), undefined, `${text} is kept but never read`);
    }
  assert.ok(kept >= 50, `${kept} kept texts`);
  // A view's kept text is its table's.
  const shown = await h.db.query<{ view: string; table: string; column: string }>(
    `select view_name as view, table_name as table, column_name as column
       from information_schema.view_column_usage where view_schema = current_schema()`,
  );
  for (const { view, table, column } of shown)
    if (claimed.has(`${view}.${column}`)) claimed.add(`${table}.${column}`);
  const orphans = rows.filter(
    (row) => row.generated && /_(iso|json)$/.test(row.column) && !claimed.has(`${row.table}.${row.column}`),
  );
  assert.deepEqual(orphans, [], 'a kept text no field reads');
});

test('a kept instant is iso() whatever the time zone and locale of the session, from before 1970 to microseconds (P248)', async () => {
  const instants = [
    ['1969-07-20 20:17:40.5+00', '1969-07-20T20:17:40.500000Z'],
    ['2026-11-28 23:59:59.999999-05:45', '2026-11-29T05:44:59.999999Z'],
    ['0001-01-01 00:00:00+00', '0001-01-01T00:00:00.000000Z'],
  ];
  const sessions = [
    "set local timezone = 'UTC'",
    "set local timezone = 'Asia/Kathmandu'; set local lc_time = 'C'; set local datestyle = 'German, DMY'",
  ];
  for (const session of sessions) {
    const answers = await h.db.transaction(async (tx) => {
      for (const statement of session.split('; ')) await tx.query(statement);
      return tx.query<{ kept: string; iso: string }>(
        `select iso_kept(x::timestamptz) as kept, iso(x::timestamptz) as iso from unnest($1::text[]) x`,
        [instants.map(([input]) => input)],
      );
    });
    assert.deepEqual(
      answers.map(({ kept, iso }) => [kept, iso]),
      instants.map(([, text]) => [text, text]),
      session,
    );
  }
  const [arrays] = await h.db.query<{ kept: string }>(
    `select json_kept(array['a"b', 'é', '', null]) as kept`,
  );
  assert.equal(arrays?.kept, JSON.stringify(['a"b', 'é', '', null]));
});

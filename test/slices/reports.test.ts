// risk-data-api.md "Endpoints › Reports", "Events", "Limits" (signed PDF URL, PDF rate limit), "Errors" (409
// of the PDF endpoint); resources.md "Report"; decisions 4, 25, 33, 42; management-api.md
// "POST /admin/reports/{id}/render", "Import document".
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { signObjectUrl } from '../../src/reports/signed-url.js';
import { OBJECT_SLICE_BYTES } from '../../src/reports/storage.js';
import { generateSeedDocument } from '../../src/seed/index.js';
import { assertError, Harness, type Response, useHarness } from '../support/harness.js';

const BASE_URL = 'https://api.example.test';

const S1 = randomUUID();
const S2 = randomUUID();
const A1 = randomUUID();
// Generation order (R2, R3, R1) differs from creation order (R1, R3, R2): the list must follow generated_at.
const R1 = randomUUID(); // S1, A1, generated 2024-03-01, created 2024-12-01
const R2 = randomUUID(); // S1, no assessment, generated 2024-05-01, created 2024-01-01
const R3 = randomUUID(); // S2, no assessment, generated 2024-04-01, created 2024-06-01

const { h, ws } = useHarness({ env: { PUBLIC_BASE_URL: BASE_URL }, workspaces: ['ws'] }, async () => {
  await h.import(ws.id, {
    suppliers: [
      { id: S1, name: 'Zürich Systems AG', domain: 'zurich-systems.example', criticality: 'high' },
      { id: S2, name: 'Second supplier' },
    ],
    assessments: [
      {
        id: A1,
        supplier_id: S1,
        assessment_type: 'supplier',
        status: 'completed',
        decision: 'approved_with_caveats',
        score: 72,
        completed_at: '2024-02-20T00:00:00Z',
      },
    ],
    gaps: [
      {
        assessment_id: A1,
        control_code: 'ISO-9',
        control_title: 'Backups',
        status: 'not_met',
        severity: 'high',
      },
      {
        assessment_id: A1,
        control_code: 'ISO-10',
        control_title: 'Logging',
        status: 'partially_met',
        severity: 'low',
      },
    ],
    reports: [
      {
        id: R1,
        supplier_id: S1,
        assessment_id: A1,
        title: 'Zürich Systems: assessment report',
        report_type: 'assessment',
        narrative: 'Scored 72 out of 100 with 2 open gaps.',
        generated_at: '2024-03-01T00:00:00Z',
        created_at: '2024-12-01T00:00:00Z',
      },
      {
        id: R2,
        supplier_id: S1,
        title: 'Zürich Systems: executive summary',
        report_type: 'executive_summary',
        narrative: 'Supports 3 business processes.',
        generated_at: '2024-05-01T00:00:00Z',
        created_at: '2024-01-01T00:00:00Z',
      },
      {
        id: R3,
        supplier_id: S2,
        assessment_id: null,
        title: 'Second supplier: executive summary',
        report_type: 'executive_summary',
        narrative: 'Short.',
        // decision 42: a computed field in the document is ignored; an imported report has no PDF.
        pdf_status: 'ready',
        generated_at: '2024-04-01T00:00:00Z',
        created_at: '2024-06-01T00:00:00Z',
      },
    ],
  });
});

const ids = (res: Response) => res.json.data.map((row: { id: string }) => row.id);
const list = (query: string, key = ws.key) => h.api('GET', `/reports${query}`, { key });
const render = (id: string, body?: unknown) => h.admin('POST', `/admin/reports/${id}/render`, body);
const pdf = (id: string, key = ws.key) => h.api('GET', `/reports/${id}/pdf`, { key });
/** The path and query of a signed URL, to inject into the public app. */
const pathOf = (location: string) => {
  const url = new URL(location);
  return `${url.pathname}${url.search}`;
};

describe('GET /reports', () => {
  test('newest first by generated_at, not created_at', async () => {
    const res = await list('');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), [R2, R3, R1]);
    assert.deepEqual(res.json.meta, { has_more: false, next_cursor: null, feature_status: 'available' });
  });

  test('filter supplier_id', async () => {
    assert.deepEqual(ids(await list(`?supplier_id=${S1}`)), [R2, R1]);
    assert.deepEqual(ids(await list(`?supplier_id=${S2}`)), [R3]);
  });

  test('filter assessment_id', async () => {
    assert.deepEqual(ids(await list(`?assessment_id=${A1}`)), [R1]);
    assert.deepEqual(ids(await list(`?assessment_id=${A1}&supplier_id=${S2}`)), []);
  });

  test('ids of another workspace in filters give an empty page', async () => {
    const other = await h.workspace();
    const theirSupplier = randomUUID();
    await h.import(other.id, {
      suppliers: [{ id: theirSupplier, name: 'Theirs' }],
      reports: [{ supplier_id: theirSupplier, title: 'Theirs', report_type: 'assessment' }],
    });
    assert.deepEqual((await list(`?supplier_id=${theirSupplier}`)).json.data, []);
    assert.deepEqual((await list(`?supplier_id=${S1}`, other.key)).json.data, []);
  });

  test('malformed filters and unknown parameters are 400 naming the parameter', async () => {
    for (const [query, parameter] of [
      ['?supplier_id=abc', 'supplier_id'],
      ['?assessment_id=1', 'assessment_id'],
      ['?report_type=assessment', 'report_type'],
      ['?limit=0', 'limit'],
      ['?cursor=forged', 'cursor'],
    ] as const) {
      const res = await list(query);
      assertError(res, 400, 'invalid_request');
      assert.equal(res.json.error.details.parameter, parameter, query);
    }
  });

  test('cursor paging in generation order', async () => {
    const first = await list('?limit=2');
    assert.deepEqual(ids(first), [R2, R3]);
    assert.equal(first.json.meta.has_more, true);
    const second = await list(`?limit=2&cursor=${encodeURIComponent(first.json.meta.next_cursor)}`);
    assert.deepEqual(ids(second), [R1]);
    assert.equal(second.json.meta.next_cursor, null);
  });

  test('needs reports:read', async () => {
    const key = await h.key(ws.id, ws.userId, ['assessments:read']);
    const res = await list('', key.secret);
    assertError(res, 403, 'insufficient_scope');
    assert.equal(res.json.error.details.required_scope, 'reports:read');
  });
});

describe('GET /reports/{id}', () => {
  test('fields of resources.md; pdf_status pending until rendered, whatever the import said', async () => {
    const res = await h.api('GET', `/reports/${R3}`, { key: ws.key });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.json).sort(), [
      'assessment_id',
      'created_at',
      'generated_at',
      'id',
      'narrative',
      'pdf_status',
      'report_type',
      'supplier_id',
      'title',
      'updated_at',
    ]);
    assert.equal(res.json.pdf_status, 'pending');
    assert.equal(res.json.assessment_id, null);
    assert.equal(res.json.generated_at, '2024-04-01T00:00:00.000000Z');
  });

  test('a report of another workspace is a 404 on every report route, like a missing one', async () => {
    const other = await h.workspace();
    for (const path of [
      `/reports/${R1}`,
      `/reports/${R1}/pdf`,
      `/reports/${randomUUID()}/pdf`,
      '/reports/x',
    ]) {
      assertError(await h.api('GET', path, { key: other.key }), 404, 'resource_not_found');
    }
  });
});

describe('report PDF', () => {
  test('409 pdf_not_ready before a PDF exists (decision 33)', async () => {
    const res = await pdf(R3);
    assertError(res, 409, 'conflict');
    assert.equal(res.json.error.details.reason, 'pdf_not_ready');
    assert.equal(res.headers.location, undefined);
  });

  test('render, then 302 to a signed URL valid 5 minutes that serves the PDF without an API key', async () => {
    const rendered = await render(R1);
    assert.equal(rendered.status, 200);
    assert.equal(rendered.json.id, R1);
    assert.equal(rendered.json.pdf_status, 'ready');
    assert.equal((await h.api('GET', `/reports/${R1}`, { key: ws.key })).json.pdf_status, 'ready');

    const before = Math.floor(Date.now() / 1000);
    const res = await pdf(R1);
    assert.equal(res.status, 302);
    assert.equal(res.body, '');
    const location = res.headers.location as string;
    assert.ok(location.startsWith(`${BASE_URL}/files/`), location);
    // The stored object path is never returned: neither the key nor its parts appear.
    for (const secret of ['workspaces/', 'workspaces%2F', 'reports/', '.pdf', ws.id, R1]) {
      assert.equal(location.includes(secret), false, `${secret} in ${location}`);
    }
    const expires = Number(new URL(location).searchParams.get('expires'));
    assert.ok(expires >= before + 300 && expires <= Math.ceil(Date.now() / 1000) + 300, String(expires));

    const file = await h.api('GET', pathOf(location));
    assert.equal(file.status, 200);
    assert.equal(file.headers['content-type'], 'application/pdf');
    assert.ok(file.body.startsWith('%PDF-'));
  });

  test('a PDF larger than one slice is streamed whole from the database, its size announced (P80)', async () => {
    const objectKey = `workspaces/${ws.id}/reports/${randomUUID()}.pdf`;
    const big = Buffer.concat([Buffer.from('%PDF-1.3\n'), randomBytes(3 * OBJECT_SLICE_BYTES + 5)]);
    await h.services.objects.put(objectKey, big, 'application/pdf');
    const url = signObjectUrl({
      baseUrl: BASE_URL,
      objectKey,
      expiresAt: Math.floor(Date.now() / 1000) + 300,
      secret: h.services.urlSecret,
    });
    const file = await h.publicApp.inject({ method: 'GET', url: pathOf(url) });
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-length'], String(big.length));
    assert.ok(file.rawPayload.equals(big), 'every byte, in order');
  });

  test('render emits report.ready with {report_id, supplier_id, assessment_id} and writes an audit entry', async () => {
    await render(R2);
    const events = await h.db.query<{ payload: string }>(
      `select payload from events where workspace_id = $1 and type = 'report.ready'
          and payload::json -> 'data' ->> 'report_id' = $2`,
      [ws.id, R2],
    );
    assert.equal(events.length, 1);
    const payload = JSON.parse(events[0]?.payload ?? '{}');
    assert.equal(payload.organization_id, ws.id);
    assert.deepEqual(payload.data, { report_id: R2, supplier_id: S1, assessment_id: null });
    const audit = await h.db.query(
      "select 1 from audit_logs where workspace_id = $1 and action = 'report.rendered' and target_id = $2",
      [ws.id, R2],
    );
    assert.equal(audit.length, 1);
    // A report without an assessment renders too.
    const res = await pdf(R2);
    assert.equal(res.status, 302);
    const file = await h.api('GET', pathOf(res.headers.location as string));
    assert.ok(file.body.startsWith('%PDF-'));
  });

  test('a tampered, re-signed or expired URL is refused with 404 in the error shape', async () => {
    await render(R1);
    const location = (await pdf(R1)).headers.location as string;
    const url = new URL(location);
    // The first character: every one of its bits is significant (the last base64 character may carry
    // padding bits that decoding ignores).
    const flip = (text: string) => `${text.startsWith('A') ? 'B' : 'A'}${text.slice(1)}`;
    const token = url.pathname.split('/').pop() as string;
    const variants = [
      `/files/${token}?expires=${url.searchParams.get('expires')}&signature=${flip(url.searchParams.get('signature') ?? '')}`,
      `/files/${flip(token)}${url.search}`,
      `/files/${token}?expires=${Number(url.searchParams.get('expires')) + 3600}&signature=${url.searchParams.get('signature')}`,
      `/files/${token}`,
      // Signed with another secret.
      pathOf(
        signObjectUrl({
          baseUrl: BASE_URL,
          objectKey: `workspaces/${ws.id}/reports/${R1}.pdf`,
          expiresAt: Math.floor(Date.now() / 1000) + 300,
          secret: 'not the service secret',
        }),
      ),
      // Issued by the service, but expired.
      pathOf(
        signObjectUrl({
          baseUrl: BASE_URL,
          objectKey: `workspaces/${ws.id}/reports/${R1}.pdf`,
          expiresAt: Math.floor(Date.now() / 1000) - 1,
          secret: h.services.urlSecret,
        }),
      ),
      // Properly signed, but no such object.
      pathOf(
        signObjectUrl({
          baseUrl: BASE_URL,
          objectKey: `workspaces/${ws.id}/reports/${randomUUID()}.pdf`,
          expiresAt: Math.floor(Date.now() / 1000) + 300,
          secret: h.services.urlSecret,
        }),
      ),
    ];
    for (const path of variants) {
      const res = await h.api('GET', path);
      assertError(res, 404, 'resource_not_found');
      assert.notEqual(res.headers['content-type'], 'application/pdf');
    }
    // The untouched URL still works.
    assert.equal((await h.api('GET', pathOf(location))).status, 200);
  });

  test('needs reports:read', async () => {
    const key = await h.key(ws.id, ws.userId, ['assessments:read']);
    assertError(await pdf(R1, key.secret), 403, 'insufficient_scope');
  });

  test('render of an unknown report is a 404', async () => {
    assertError(await render(randomUUID()), 404, 'resource_not_found');
    assertError(await render(R1, { workspace_id: randomUUID() }), 404, 'resource_not_found');
    assertError(await render(R1, { colour: 'red' }), 400, 'invalid_request');
  });
});

describe('GET /reports/{id}/pdf rate limit', () => {
  test('counts against its own 60 per hour on top of the workspace buckets (here shrunk to 2)', async () => {
    const limited = await Harness.start({
      buckets: { pdf: [{ name: 'pdf-hour', limit: 2, windowMs: 3_600_000 }] },
    });
    try {
      const w = await limited.workspace();
      const supplierId = randomUUID();
      const reportId = randomUUID();
      await limited.import(w.id, {
        suppliers: [{ id: supplierId, name: 'Limited' }],
        reports: [{ id: reportId, supplier_id: supplierId, title: 'T', report_type: 'assessment' }],
      });
      for (let i = 0; i < 2; i++) {
        assertError(await limited.api('GET', `/reports/${reportId}/pdf`, { key: w.key }), 409, 'conflict');
      }
      const over = await limited.api('GET', `/reports/${reportId}/pdf`, { key: w.key });
      assertError(over, 429, 'rate_limit_exceeded');
      assert.ok(Number(over.headers['retry-after']) > 0);
      // Other endpoints are not held back by the PDF bucket.
      assert.equal((await limited.api('GET', `/reports/${reportId}`, { key: w.key })).status, 200);
    } finally {
      await limited.close();
    }
  });
});

describe('import', () => {
  test('the seed generator output of this area imports; reports start pending', async () => {
    const seed = generateSeedDocument({ size: { suppliers: 60 }, seed: 2026 });
    const fresh = await h.workspace();
    const mine = ['suppliers', 'assessments', 'gaps', 'reports'];
    const document = Object.fromEntries(Object.entries(seed).filter(([name]) => mine.includes(name)));
    assert.ok((document.gaps?.length ?? 0) > 0 && (document.reports?.length ?? 0) > 0);
    const res = await h.import(fresh.id, document);
    assert.equal(res.json.created.reports, document.reports?.length);
    assert.equal(res.json.created.gaps, document.gaps?.length);
    const page = await h.api('GET', '/reports?limit=200', { key: fresh.key });
    assert.ok(page.json.data.every((report: { pdf_status: string }) => report.pdf_status === 'pending'));
    const generated = page.json.data.map((report: { generated_at: string }) => report.generated_at);
    assert.deepEqual(generated, [...generated].sort().reverse());
  });

  test('references resolve inside the workspace', async () => {
    const other = await h.workspace();
    const res = await h.admin('POST', `/admin/workspaces/${other.id}/import`, {
      reports: [{ supplier_id: S1, assessment_id: A1, title: 'T', report_type: 'assessment' }],
    });
    assertError(res, 422, 'validation_failed');
    assert.deepEqual(Object.keys(res.json.error.details.fields).sort(), [
      'reports[0].assessment_id',
      'reports[0].supplier_id',
    ]);
  });
});

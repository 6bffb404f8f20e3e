import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type ReportPdfInput, renderReportPdf } from '../../src/reports/pdf.js';
import { SIGNED_URL_TTL_SECONDS, signObjectUrl, verifyObjectUrl } from '../../src/reports/signed-url.js';
import {
  createDatabaseObjectStorage,
  importLocalObjects,
  ObjectChangedError,
  type ObjectStorage,
} from '../../src/reports/storage.js';
import { Harness } from '../support/harness.js';
import { readPdf } from '../support/pdf.js';

// Compiled to dist/test/unit/, so the repository root is three levels up. test-artifacts/ is git-ignored.
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const NON_LATIN = 'Zürich Ünïcode — Москва — Αθήνα';

function sampleReport(gapCount: number): ReportPdfInput {
  return {
    report: {
      title: 'Annual Vendor Assessment Report',
      report_type: 'assessment',
      generated_at: '2025-03-14T09:26:53Z',
      narrative: `Summary for ${NON_LATIN}.\n\n${'The supplier showed mature controls in most domains. '.repeat(12)}`,
    },
    supplier: {
      name: 'Acme Zürich — Облако — Σύννεφο GmbH',
      domain: 'acme.example',
      country: 'CH',
      criticality: 'high',
    },
    assessment: {
      assessment_type: 'supplier',
      status: 'completed',
      decision: 'approved_with_caveats',
      score: 72.5,
      completed_at: '2025-03-10T16:00:00Z',
    },
    gaps: Array.from({ length: gapCount }, (_, i) => ({
      control_code: `CTL-${String(i + 1).padStart(3, '0')}`,
      control_title:
        i % 7 === 0
          ? `Access reviews for privileged accounts are performed quarterly and documented (${i + 1})`
          : `Encryption at rest ${i + 1}`,
      severity: ['low', 'medium', 'high'][i % 3] ?? 'low',
      status: 'partially_met',
      evidence_status: i % 2 ? 'missing' : 'under_review',
    })),
  };
}

describe('renderReportPdf', () => {
  test('renders a multi-page, text-extractable A4 PDF for 300 gaps', async () => {
    const input = sampleReport(300);
    const pdf = await renderReportPdf(input);
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');

    // Kept for a person to open (test-artifacts/ is git-ignored).
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, 'report-300-gaps.pdf'), pdf);

    const pages = await readPdf(pdf);
    assert.ok(pages.length > 1, `expected more than one page, got ${pages.length}`);
    for (const [index, page] of pages.entries()) {
      assert.deepEqual([page.width.toFixed(2), page.height.toFixed(2)], ['595.28', '841.89'], 'A4');
      // The footer numbering agrees with the real page count, on every page.
      assert.ok(page.text.includes(`Page ${index + 1} of ${pages.length}`), `footer of page ${index + 1}`);
      // Every glyph is drawn with a font carried in the file (DejaVu Sans, which covers the non-Latin text),
      // never one a viewer would substitute.
      assert.ok(page.fonts.length > 0);
      for (const font of page.fonts) {
        assert.ok(font.embedded, `page ${index + 1}: ${font.name} is not embedded`);
        assert.match(font.name, /^[A-Z]{6}\+DejaVuSans(-Bold)?$/, 'a subset of DejaVu Sans');
      }
    }
    const text = pages.map((page) => page.text).join('\n');
    assert.ok(text.includes(input.report.title));
    assert.ok(text.includes(input.supplier.name));
    assert.ok(text.includes(NON_LATIN), 'non-Latin sample text must survive extraction');
    // Every row made it into the document: nothing was clipped at page breaks.
    for (const gap of input.gaps) assert.ok(text.includes(gap.control_code), `missing ${gap.control_code}`);
    assert.ok(!text.includes('/work/') && !text.includes('node_modules'), 'no file-system paths in the PDF');
  });

  test('a small report fits on one page and renders the same bytes twice', async () => {
    const input = { ...sampleReport(3), assessment: null };
    const pdf = await renderReportPdf(input);
    assert.deepEqual(await renderReportPdf(input), pdf);
    const pages = await readPdf(pdf);
    assert.equal(pages.length, 1);
    assert.ok(pages[0]?.text.includes('CTL-003'));
    assert.ok(!pages[0]?.text.includes('Decision'), 'no assessment block without an assessment');
  });
});

describe('object storage in the database', () => {
  const reportKey = (workspaceId: string) =>
    `workspaces/${workspaceId}/reports/9a7d0c3e-0000-4000-8000-000000000002.pdf`;
  /** The object's bytes, read to the end of its stream; null when there is none. */
  async function get(storage: ObjectStorage, key: string): Promise<Buffer | null> {
    const stored = await storage.open(key);
    if (!stored) return null;
    const bytes = await buffer(stored.body);
    assert.equal(bytes.length, stored.size, 'the announced size is what is streamed');
    return bytes;
  }

  test('put/get round trip and overwrite, every byte value kept; keys are per workspace', async () => {
    const h = await Harness.start();
    try {
      const storage = createDatabaseObjectStorage(h.db);
      const key = reportKey((await h.workspace()).id);
      assert.equal(await get(storage, key), null);
      await storage.put(key, Buffer.from('%PDF-1.3 one'), 'application/pdf');
      assert.equal((await get(storage, key))?.toString(), '%PDF-1.3 one');
      await storage.put(key, Buffer.from('%PDF-1.3 two'), 'application/pdf');
      assert.equal((await get(storage, key))?.toString(), '%PDF-1.3 two');
      const binary = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));
      await storage.put(key, binary, 'application/pdf');
      assert.deepEqual(await get(storage, key), binary);
      assert.equal(await get(storage, reportKey((await h.workspace()).id)), null, "another workspace's path");
    } finally {
      await h.close();
    }
  });

  test('read slice by slice, one statement each, from the version the read started with (P80)', async () => {
    const h = await Harness.start();
    try {
      const sliceBytes = 16 * 1024;
      const storage = createDatabaseObjectStorage(h.db, { sliceBytes });
      const key = reportKey((await h.workspace()).id);
      const bytes = Buffer.from(Array.from({ length: 5 * sliceBytes + 123 }, (_, i) => (i * 31) % 256));
      await storage.put(key, bytes, 'application/pdf');
      const stored = await storage.open(key);
      assert.ok(stored);
      assert.deepEqual(
        { contentType: stored.contentType, size: stored.size },
        {
          contentType: 'application/pdf',
          size: bytes.length,
        },
      );
      const slices: Buffer[] = [];
      for await (const slice of stored.body) slices.push(slice as Buffer);
      assert.deepEqual(
        slices.map((slice) => slice.length),
        [sliceBytes, sliceBytes, sliceBytes, sliceBytes, sliceBytes, 123],
      );
      assert.deepEqual(Buffer.concat(slices), bytes);

      // Written again while being read: the stream stops rather than mix two versions.
      const reading = await storage.open(key);
      assert.ok(reading);
      const iterator = reading.body[Symbol.asyncIterator]();
      assert.deepEqual((await iterator.next()).value, bytes.subarray(0, sliceBytes));
      await storage.put(key, Buffer.alloc(bytes.length, 1), 'application/pdf');
      await assert.rejects(async () => {
        while (!(await iterator.next()).done);
      }, ObjectChangedError);
      assert.deepEqual(
        await get(storage, key),
        Buffer.alloc(bytes.length, 1),
        'a new read gets the new version',
      );
    } finally {
      await h.close();
    }
  });

  test('refuses keys that are not portable or not under a workspace', async () => {
    const h = await Harness.start();
    try {
      const storage = createDatabaseObjectStorage(h.db);
      const ws = 'workspaces/6f1c2b1e-0000-4000-8000-000000000001';
      const bad = [
        '../x.pdf',
        `${ws}/../../x.pdf`,
        `${ws}/..`,
        '/etc/passwd',
        `${ws}\\..\\x`,
        `${ws}/a\0b`,
        '',
        `${ws}//b`,
        './a',
        'workspaces',
        'reports/x.pdf',
      ];
      for (const key of bad) {
        await assert.rejects(storage.put(key, Buffer.from('x'), 'text/plain'), /Invalid object key/, key);
        await assert.rejects(storage.open(key), /Invalid object key/, key);
      }
    } finally {
      await h.close();
    }
  });

  test('PDFs an earlier version kept under DATA_DIR/objects are copied in once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'objects-'));
    const h = await Harness.start();
    try {
      const storage = createDatabaseObjectStorage(h.db);
      const reports = `workspaces/${(await h.workspace()).id}/reports`;
      mkdirSync(join(dir, reports), { recursive: true });
      writeFileSync(join(dir, reports, 'a.pdf'), '%PDF-1.3 a');
      writeFileSync(join(dir, reports, '.partial.tmp'), 'half');
      await storage.put(`${reports}/b.pdf`, Buffer.from('%PDF-1.3 newer'), 'application/pdf');
      writeFileSync(join(dir, reports, 'b.pdf'), '%PDF-1.3 older');
      assert.equal(await importLocalObjects(dir, storage), 1);
      assert.equal((await get(storage, `${reports}/a.pdf`))?.toString(), '%PDF-1.3 a');
      assert.equal((await get(storage, `${reports}/b.pdf`))?.toString(), '%PDF-1.3 newer', 'stored keys win');
      assert.equal(await importLocalObjects(dir, storage), 0, 'a second start copies nothing');
      assert.equal(await importLocalObjects(join(dir, 'missing'), storage), 0);
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('signed object URLs', () => {
  const secret = 'test-secret-0123456789abcdef0123456789abcdef';
  const objectKey = 'workspaces/6f1c2b1e-0000-4000-8000-000000000001/reports/9a7d0c3e.pdf';
  const now = 1_750_000_000;

  const parse = (url: string) => {
    const u = new URL(url);
    const token = u.pathname.split('/').pop() ?? '';
    return {
      token,
      expires: u.searchParams.get('expires') ?? '',
      signature: u.searchParams.get('signature') ?? '',
    };
  };
  const make = () =>
    signObjectUrl({
      baseUrl: 'https://api.example/v1/',
      objectKey,
      expiresAt: now + SIGNED_URL_TTL_SECONDS,
      secret,
    });

  test('valid URL verifies and yields the key; the key text is not in the URL', () => {
    assert.equal(SIGNED_URL_TTL_SECONDS, 300);
    const url = make();
    assert.match(
      url,
      /^https:\/\/api\.example\/v1\/files\/[A-Za-z0-9_-]+\?expires=\d+&signature=[A-Za-z0-9_-]+$/,
    );
    for (const part of [
      objectKey,
      'workspaces',
      'reports',
      '9a7d0c3e',
      Buffer.from(objectKey).toString('base64url'),
    ]) {
      assert.ok(!url.includes(part), `URL leaks ${part}`);
    }
    assert.deepEqual(verifyObjectUrl({ ...parse(url), secret, now }), { ok: true, objectKey });
    assert.deepEqual(verifyObjectUrl({ ...parse(url), secret: Buffer.from(secret), now }), {
      ok: true,
      objectKey,
    });
  });

  test('expired URL', () => {
    const parts = parse(make());
    assert.deepEqual(verifyObjectUrl({ ...parts, secret, now: now + SIGNED_URL_TTL_SECONDS }), {
      ok: false,
      reason: 'expired',
    });
  });

  test('tampered or malformed input is invalid and never throws', () => {
    const parts = parse(make());
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    const cases = [
      { ...parts, token: flip(parts.token) },
      { ...parts, expires: String(Number(parts.expires) + 3600) },
      { ...parts, signature: flip(parts.signature) },
      { ...parts, signature: parts.signature.slice(0, 10) }, // length mismatch
      { ...parts, signature: `${parts.signature}AAAA` },
      { ...parts, expires: 'soon' },
      { ...parts, expires: '' },
      { ...parts, token: '../../etc/passwd' },
      { ...parts, token: '' },
      { ...parts, signature: '' },
      { ...parts, secret: 'another secret' },
      { ...parts, token: undefined as unknown as string },
    ];
    for (const c of cases) {
      assert.deepEqual(
        verifyObjectUrl({ secret, now, ...c }),
        { ok: false, reason: 'invalid' },
        JSON.stringify(c),
      );
    }
  });
});

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type PDFKit from 'pdfkit';

/** Everything the PDF shows. Plain data so the renderer stays independent of storage and HTTP code. */
export interface ReportPdfInput {
  report: {
    title: string;
    report_type: string;
    /** ISO 8601 instant. */
    generated_at: string;
    narrative: string;
  };
  supplier: {
    name: string;
    domain: string | null;
    country: string | null;
    criticality: string | null;
  };
  /** Null when the report is not tied to an assessment. */
  assessment: {
    assessment_type: string;
    status: string;
    decision: string | null;
    score: number | null;
    /** ISO 8601 instant or null. */
    completed_at: string | null;
  } | null;
  /** Ordered as the caller wants them shown (the API orders gaps by control code). */
  gaps: ReadonlyArray<{
    control_code: string;
    control_title: string;
    severity: string;
    status: string;
    evidence_status: string;
  }>;
}

// The built-in PDF fonts only cover WinAnsi, so Cyrillic/Greek would come out as garbage. DejaVu Sans covers
// Latin, Greek and Cyrillic. The path is resolved through the package so it works wherever node_modules is.
const FONT_REGULAR = 'DejaVuSans';
const FONT_BOLD = 'DejaVuSans-Bold';
let fontCache: { regular: Buffer; bold: Buffer } | undefined;
function fonts(): { regular: Buffer; bold: Buffer } {
  if (!fontCache) {
    const dir = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
    fontCache = {
      regular: readFileSync(join(dir, 'DejaVuSans.ttf')),
      bold: readFileSync(join(dir, 'DejaVuSans-Bold.ttf')),
    };
  }
  return fontCache;
}

const MARGIN = 50;
const FOOTER_GAP = 24; // space kept free below the content area for the page footer
const ROW_PAD = 3;
const TABLE_FONT_SIZE = 8.5;
// Column widths add up to the A4 content width (595.28 - 2 * 50 ≈ 495).
const COLUMNS = [
  { header: 'Control', key: 'control_code', width: 70 },
  { header: 'Title', key: 'control_title', width: 200 },
  { header: 'Severity', key: 'severity', width: 55 },
  { header: 'Status', key: 'status', width: 85 },
  { header: 'Evidence', key: 'evidence_status', width: 85 },
] as const;
// A single cell taller than a page would overflow the page; titles are capped well below that.
const MAX_CELL_CHARS = 300;

/** Drops control characters (they would render as empty boxes) but keeps line breaks and tabs. */
function clean(value: string | null | undefined, max = Number.POSITIVE_INFINITY): string {
  let out = '';
  for (const ch of value ?? '') {
    const code = ch.codePointAt(0) ?? 0;
    if ((code < 0x20 && ch !== '\n' && ch !== '\t') || (code >= 0x7f && code < 0xa0)) continue;
    out += ch;
  }
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

/** Instants shown in UTC so the document reads the same regardless of the server's time zone. */
function formatInstant(value: string | null): string {
  if (!value) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return clean(value, 64);
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const orDash = (value: string | null | undefined): string => (value ? clean(value, 200) : '—');

// Loaded on the first render, not at start-up (it is the heaviest module of the process).
let pdfkit: typeof PDFKit | undefined;

export async function renderReportPdf(input: ReportPdfInput): Promise<Buffer> {
  pdfkit ??= (await import('pdfkit')).default;
  const PDFDocument = pdfkit;
  const generated = new Date(input.report.generated_at);
  const title = clean(input.report.title, 500) || 'Report';
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: MARGIN + FOOTER_GAP },
    bufferPages: true, // needed to write "Page x of y" once the total is known
    // Fixed metadata derived from the report, so the same report renders to the same bytes
    // (pdfkit derives the file ID from the info dictionary).
    info: {
      Title: title,
      Creator: 'tprm-api',
      Producer: 'tprm-api',
      CreationDate: Number.isNaN(generated.getTime()) ? new Date(0) : generated,
    },
    lang: 'en',
    displayTitle: true,
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const { regular, bold } = fonts();
  doc.registerFont(FONT_REGULAR, regular);
  doc.registerFont(FONT_BOLD, bold);

  const left = MARGIN;
  const width = doc.page.width - 2 * MARGIN;
  const bottom = () => doc.page.height - doc.page.margins.bottom;

  // Title block.
  doc.font(FONT_BOLD).fontSize(18).fillColor('#111111').text(title, left, MARGIN, { width });
  doc.moveDown(0.3);
  doc
    .font(FONT_REGULAR)
    .fontSize(10)
    .fillColor('#555555')
    .text(
      `Report type: ${orDash(input.report.report_type)}    Generated: ${formatInstant(input.report.generated_at)}`,
      {
        width,
      },
    );
  doc.fillColor('#111111');

  const heading = (text: string) => {
    doc.moveDown(1);
    // Keep a heading together with at least a few lines of its section.
    if (doc.y + 60 > bottom()) doc.addPage();
    doc.font(FONT_BOLD).fontSize(13).text(text, left, doc.y, { width });
    const y = doc.y + 2;
    doc
      .moveTo(left, y)
      .lineTo(left + width, y)
      .lineWidth(0.5)
      .strokeColor('#999999')
      .stroke();
    doc.y = y + 6;
  };

  // Label/value pairs; labels are bold and fixed-width so the values line up.
  const fields = (pairs: Array<[string, string]>) => {
    const labelWidth = 110;
    for (const [label, value] of pairs) {
      const y = doc.y;
      doc.font(FONT_BOLD).fontSize(10).text(label, left, y, { width: labelWidth });
      const afterLabel = doc.y;
      doc.font(FONT_REGULAR).text(value, left + labelWidth, y, { width: width - labelWidth });
      doc.y = Math.max(doc.y, afterLabel) + 2;
    }
  };

  heading('Supplier');
  fields([
    ['Name', orDash(input.supplier.name)],
    ['Domain', orDash(input.supplier.domain)],
    ['Country', orDash(input.supplier.country)],
    ['Criticality', orDash(input.supplier.criticality)],
  ]);

  const { assessment } = input;
  if (assessment) {
    heading('Assessment');
    fields([
      ['Type', orDash(assessment.assessment_type)],
      ['Status', orDash(assessment.status)],
      ['Decision', orDash(assessment.decision)],
      ['Score', assessment.score === null ? '—' : `${assessment.score} / 100`],
      ['Completed', formatInstant(assessment.completed_at)],
      ['Gaps', String(input.gaps.length)],
    ]);
  }

  heading(`Gaps (${input.gaps.length})`);
  if (input.gaps.length === 0) {
    doc.font(FONT_REGULAR).fontSize(10).text('No gaps recorded.', left, doc.y, { width });
  } else {
    // Rows are measured before drawing so a row is never split across pages; the header repeats on each page.
    const cellHeight = (text: string, w: number) => doc.heightOfString(text, { width: w - 2 * ROW_PAD });
    const drawRow = (cells: string[], font: string, fill: string | null) => {
      doc.font(font).fontSize(TABLE_FONT_SIZE);
      const height = Math.max(...cells.map((c, i) => cellHeight(c, COLUMNS[i]?.width ?? 0))) + 2 * ROW_PAD;
      if (doc.y + height > bottom()) return false;
      const y = doc.y;
      if (fill) doc.rect(left, y, width, height).fill(fill);
      doc.fillColor('#111111');
      let x = left;
      cells.forEach((cell, i) => {
        const w = COLUMNS[i]?.width ?? 0;
        doc.text(cell, x + ROW_PAD, y + ROW_PAD, { width: w - 2 * ROW_PAD });
        x += w;
      });
      doc.y = y + height;
      return true;
    };
    const header = () =>
      drawRow(
        COLUMNS.map((c) => c.header),
        FONT_BOLD,
        '#d9dee5',
      );
    if (doc.y + 40 > bottom()) doc.addPage();
    header();
    input.gaps.forEach((gap, index) => {
      const cells = COLUMNS.map((c) => clean(gap[c.key], MAX_CELL_CHARS));
      const fill = index % 2 === 1 ? '#f3f5f8' : null;
      if (!drawRow(cells, FONT_REGULAR, fill)) {
        doc.addPage();
        doc.y = MARGIN;
        header();
        drawRow(cells, FONT_REGULAR, fill);
      }
    });
  }

  heading('Narrative');
  // pdfkit flows long text onto new pages by itself.
  doc
    .font(FONT_REGULAR)
    .fontSize(10)
    .fillColor('#111111')
    .text(clean(input.report.narrative) || '—', left, doc.y, { width, lineGap: 2 });

  // Footer on every page. The bottom margin is lifted temporarily, otherwise pdfkit treats text below it
  // as overflow and adds a blank page.
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const savedBottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font(FONT_REGULAR)
      .fontSize(8)
      .fillColor('#777777')
      .text(`${clean(title, 80)} — Page ${i + 1} of ${range.count}`, left, doc.page.height - MARGIN, {
        width,
        align: 'center',
        lineBreak: false,
      });
    doc.page.margins.bottom = savedBottom;
  }

  doc.end();
  return done;
}

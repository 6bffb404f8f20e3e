// Reads a PDF the way a viewer does, in JavaScript (pdfjs-dist, Mozilla's PDF reader), so that the PDF tests
// need nothing but Node and the project's npm packages.
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface PdfPage {
  /** The page's text as a viewer extracts it, one line per text line. */
  text: string;
  /** In points (A4 is 595.28 x 841.89). */
  width: number;
  height: number;
  /** The fonts the page draws with: `embedded` is false when a viewer would substitute a font of its own. */
  fonts: { name: string; embedded: boolean }[];
}

export async function readPdf(bytes: Uint8Array): Promise<PdfPage[]> {
  // pdfjs takes ownership of (detaches) the buffer it reads: give it a copy.
  const doc = await getDocument({
    data: new Uint8Array(bytes),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
  }).promise;
  try {
    const pages: PdfPage[] = [];
    for (let number = 1; number <= doc.numPages; number++) {
      const page = await doc.getPage(number);
      const content = await page.getTextContent();
      const text = content.items
        .map((item) => ('str' in item ? `${item.str}${item.hasEOL ? '\n' : ''}` : ''))
        .join('');
      // Parsing the drawing operators loads every font the page uses into commonObjs.
      const operators = await page.getOperatorList();
      const fontIds = new Set<string>();
      operators.fnArray.forEach((op, i) => {
        if (op === OPS.setFont) fontIds.add(operators.argsArray[i][0] as string);
      });
      const fonts = [...fontIds].map((id) => {
        const font = page.commonObjs.get(id) as { name: string; missingFile: boolean };
        return { name: font.name, embedded: !font.missingFile };
      });
      const [, , width, height] = page.view as [number, number, number, number];
      pages.push({ text, width, height, fonts });
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}

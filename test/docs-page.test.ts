// The API reference page (decision 4; developer-experience issue "Docs page"): GET /docs on the real public
// app, served on a loopback port, opened in headless Chromium. The page must render the operations of the
// document and make no request that leaves the machine: fonts, scripts and the document all come from the
// service itself, and nothing is refused by its Content-Security-Policy either (a refused load is an attempt).
// The screenshot is saved to test-artifacts/docs.png.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { Harness } from './support/harness.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);
const installed = existsSync(CHROMIUM);

describe('GET /docs in a browser', {
  skip: installed ? false : `${CHROMIUM} is not installed (CI installs it)`,
}, () => {
  let h: Harness;
  let browser: Browser;
  let origin: string;

  before(async () => {
    h = await Harness.start();
    origin = await h.publicApp.listen({ port: 0, host: '127.0.0.1' });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  test('renders the operations from the document, offline: every request goes to the loopback service', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1800 } });
    const requests: string[] = [];
    const refused: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    page.on('pageerror', (error) => refused.push(`page error: ${error.message}`));

    const response = await page.goto(`${origin}/docs`);
    assert.equal(response?.status(), 200);
    // Swagger UI renders one block per operation, labelled with its operationId (displayOperationId).
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    for (const text of [
      'listSuppliers',
      'createSupplier',
      'getRiskMatrix',
      'listAlerts',
      'downloadReportPdf',
    ])
      assert.ok(await page.getByText(text, { exact: true }).first().isVisible(), `${text} is shown`);
    assert.ok(
      await page.getByText('Third-party risk data API', { exact: false }).first().isVisible(),
      'the title of the document is shown',
    );
    const operations = await page.locator('.opblock').count();
    assert.ok(operations >= 25, `${operations} operations rendered`);

    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: new URL('docs.png', ARTIFACTS).pathname, fullPage: false });

    // An operation opens on its parameters and responses, with the generated examples: both matrix row shapes.
    const matrix = page.locator('.opblock').filter({ hasText: 'getRiskMatrix' }).first();
    await matrix.locator('.opblock-summary').click();
    const example = matrix.locator('.responses-wrapper .example').first();
    await example.waitFor({ timeout: 10_000 });
    const shown = (await example.textContent()) ?? '';
    assert.match(shown, /"scope": "cyber"/);
    assert.match(shown, /"scope": "organizational"/);

    const { hostname } = new URL(origin);
    assert.equal(hostname, '127.0.0.1');
    const outside = requests.filter((url) => !url.startsWith('data:') && new URL(url).hostname !== hostname);
    assert.deepEqual(outside, [], 'no request leaves the machine');
    assert.ok(
      requests.some((url) => url.endsWith('/openapi.json')),
      'the page loaded the document',
    );
    assert.deepEqual(refused, [], 'nothing was refused by the Content-Security-Policy, no script failed');
    await page.close();
  });
});

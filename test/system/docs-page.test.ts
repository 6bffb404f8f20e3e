// The reference pages (decision 4; P120): GET /docs on the real public and admin listeners, served on loopback
// ports, opened in headless Chromium. Each page renders its document with Redoc, and an operation's code
// sample (`x-codeSamples`, P89, P122) is on screen: a visible element with a size, in a screenshot saved to the
// test's temporary directory. The page makes no request that leaves the service's origin (scripts, styles,
// fonts and the document all come from it), and nothing is refused by its Content-Security-Policy either (a
// refused load is an attempt).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type Browser, chromium } from 'playwright-core';
import { Harness } from '../support/harness.js';

const CHROMIUM = '/usr/bin/chromium';
const installed = existsSync(CHROMIUM);

describe('GET /docs in a browser', {
  skip: installed ? false : `${CHROMIUM} is not installed (CI installs it)`,
}, () => {
  let h: Harness;
  let browser: Browser;
  let screenshots: string;

  before(async () => {
    h = await Harness.start();
    screenshots = await mkdtemp(join(tmpdir(), 'tprm-docs-page-'));
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

  const pages = [
    {
      listener: 'public',
      app: () => h.publicApp,
      title: 'Third-party risk data API',
      tag: 'Suppliers',
      operation: 'listSuppliers',
      sample: 'curl "$TPRM_API_URL/suppliers?limit=10"',
    },
    {
      listener: 'admin',
      app: () => h.adminApp,
      title: 'Third-party risk data API: management',
      tag: 'Workspaces',
      operation: 'listWorkspaces',
      sample: 'curl "$ADMIN_URL/admin/workspaces"',
    },
  ] as const;

  for (const { listener, app, title, tag, operation, sample } of pages) {
    test(`the ${listener} listener's page shows the code sample of ${operation}, loading nothing from elsewhere`, async () => {
      const origin = await (app() as FastifyInstance).listen({ port: 0, host: '127.0.0.1' });
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const requests: string[] = [];
      const refused: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to|violates/i.test(message.text())) refused.push(message.text());
      });
      page.on('pageerror', (error) => refused.push(`page error: ${error.message}`));

      const response = await page.goto(`${origin}/docs#tag/${tag}/operation/${operation}`);
      assert.equal(response?.status(), 200);
      const policy = String(response?.headers()['content-security-policy']);
      assert.match(policy, /default-src 'none'/);
      assert.match(policy, /script-src 'self'(;|$)/, 'scripts from this origin only, none inline');

      // Redoc renders an operation as a section named after it; its right panel holds the code samples.
      const section = page.locator(`[data-section-id="tag/${tag}/operation/${operation}"]`);
      await section.waitFor({ timeout: 30_000 });
      await section.scrollIntoViewIfNeeded();
      const code = section.locator('pre').filter({ hasText: sample }).first();
      await code.waitFor({ state: 'visible', timeout: 10_000 });
      assert.ok(await code.isVisible(), `the sample "${sample}" is visible`);
      const box = await code.boundingBox();
      assert.ok(
        box && box.width > 0 && box.height > 0,
        `the sample has a size on screen: ${JSON.stringify(box)}`,
      );
      assert.ok(await page.getByText(title, { exact: false }).first().isVisible(), 'the title is shown');
      const file = join(screenshots, `${listener}-docs.png`);
      await page.screenshot({ path: file, fullPage: false });
      assert.ok(existsSync(file));

      const { origin: own } = new URL(origin);
      assert.equal(new URL(origin).hostname, '127.0.0.1');
      // A blob: URL (the search worker the bundle makes) belongs to the origin that made it.
      const outside = requests.filter((url) => !url.startsWith('data:') && new URL(url).origin !== own);
      assert.deepEqual(outside, [], 'no request leaves the service');
      assert.ok(
        requests.some((url) => url === `${origin}/openapi.json`),
        "the page loaded its listener's document",
      );
      assert.deepEqual(refused, [], 'nothing was refused by the Content-Security-Policy, no script failed');
      await page.close();
    });
  }
});

// /docs in headless Chromium, as a person uses it: every operation of the consumers'
// contract is on the page once, under its tag, with the routes besides its own named in its
// description and the routes document linked; Register works through "Try it out", and "Authorize" makes the bearer token
// reach a protected operation; the GETs that answer live show their text/event-stream 200
// and Last-Event-ID, and a query's "Try it out", filled with the contract's examples, finds
// the demo record in JSON. A screenshot of each run lands in test-output/.
import fs from 'node:fs';
import { expect } from 'chai';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { seedDemo } from '../../src/cli/demo-data.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

const chromiumPath = '/usr/bin/chromium';
const outputDir = new URL('../../../test-output/', import.meta.url);
const spec = JSON.parse(fs.readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>> };

const operationsOf = (tag?: string) => Object.entries(spec.paths)
  .flatMap(([path, item]) => Object.entries(item)
    .filter(([, op]) => typeof op?.operationId === 'string' && (tag === undefined || op.tags?.includes(tag)))
    .map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`))
  .sort();
const contractOperations = operationsOf();

/** Expands an operation, runs it with "Try it out", and returns the answer shown on the page. */
async function tryItOut(operation: Locator, fill: (op: Locator) => Promise<void> = async () => undefined): Promise<{ status: string; body: string }> {
  if (!(await operation.locator('.opblock-body').isVisible())) await operation.locator('.opblock-summary-control').click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  await fill(operation);
  await operation.getByRole('button', { name: 'Execute' }).click();
  const answer = operation.locator('.live-responses-table .response').first();
  await answer.waitFor();
  return { status: (await answer.locator('.response-col_status').innerText()).trim(), body: await answer.locator('.response-col_description pre').first().innerText() };
}

forEachDialect('documentation page in Chromium', (dialect) => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  let registered: { userId: string; userName: string; bearerToken: string; refreshToken: string } | undefined;

  before(async () => {
    if (!fs.existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: \`make test\` installs it, or run apt-get install -y chromium`);
    s = await startServer({ dialect });
    await seedDemo(s.db);
    // --no-sandbox: the suites run as root in containers, where Chromium's sandbox cannot start.
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // CSP violations surface as console errors; any of them means part of the page is broken.
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${s.baseUrl}/docs`);
    await page.locator('.opblock').first().waitFor();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  it('shows every operation of the contract once, by method, path and operationId, under its tag', async () => {
    const blocks = (root: Locator) => root.locator('.opblock').evaluateAll((found) => found.map((b) =>
      [b.querySelector('.opblock-summary-method')?.textContent, b.querySelector('.opblock-summary-path')?.getAttribute('data-path'), b.querySelector('.opblock-summary-operation-id')?.textContent].join(' ')));
    const shown = await blocks(page.locator('body'));
    expect(shown.sort()).to.deep.equal(contractOperations);
    expect(shown.length, 'each operation once (design.md §2)').to.be.at.most(30);
    const sections = page.locator('.opblock-tag-section');
    const tags = await sections.locator('h3.opblock-tag').evaluateAll((found) => found.map((h) => h.getAttribute('data-tag') ?? ''));
    expect(tags).to.deep.equal(['Accounts', 'Impianti', 'Query', 'Health', 'Service']);
    for (const [i, tag] of tags.entries()) {
      expect((await blocks(sections.nth(i))).sort(), tag).to.deep.equal(operationsOf(tag));
    }
  });

  it('names the routes besides its own in an operation, links the routes document, and shows the leniency mark', async () => {
    const files = page.locator('#operations-Impianti-GetImpiantoFilesRequest');
    await files.locator('.opblock-summary-control').click();
    await files.locator('.opblock-body').waitFor();
    const text = await files.innerText();
    for (const route of ['/impianti/{ImpiantoId}/files.json', '/json/reply/GetImpiantoFilesRequest', '/api/GetImpiantoFilesRequest', 'openapi-routes.json']) expect(text).to.include(route);
    expect(await page.locator('a[href$="openapi-routes.json"]').count(), 'the routes document is linked').to.be.greaterThan(0);
    await files.locator('.opblock-summary-control').click();
    const register = page.locator('#model-Register');
    await register.locator('.model-box-control').first().click();
    await register.getByText('x-case-insensitive-properties').first().waitFor();
    expect(await register.innerText()).to.match(/x-case-insensitive-properties[\s\S]*true/);
  });

  it('registers a user through "Try it out" and shows the 200 answer', async () => {
    const userName = `browser.${dialect}`;
    const answer = await tryItOut(page.locator('#operations-Accounts-Register'), async (op) => {
      await op.locator('textarea.body-param__text').fill(JSON.stringify({ userName, password: 'correct-horse-battery', autoLogin: true }));
    });
    expect(answer.status, answer.body).to.equal('200');
    registered = JSON.parse(answer.body);
    expect(registered).to.include({ userName });
    const row = await s.knex('app_user').where({ id: Number(registered!.userId) }).first('user_name');
    expect(row?.user_name).to.equal(userName);
    fs.mkdirSync(outputDir, { recursive: true });
    await page.screenshot({ path: new URL(`docs-page-${dialect}.png`, outputDir).pathname, fullPage: true });
  });

  it('sends the token given to "Authorize" with protected operations', async () => {
    expect(registered, 'the Register test must pass first').not.to.equal(undefined);
    await page.locator('.auth-wrapper .authorize').click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('#auth-bearer-value').fill(registered!.bearerToken);
    await dialog.locator('.auth-btn-wrapper button.authorize').click();
    await dialog.locator('button.btn-done').click();
    const answer = await tryItOut(page.locator('#operations-Accounts-Logout'));
    expect([answer.status, answer.body]).to.deep.equal(['200', '{}']);
    // The logout really closed the registered session: its refresh token is spent.
    expect((await s.request('POST', '/access-token', { json: { refreshToken: registered!.refreshToken } })).status).to.equal(401);
  });

  it('shows the live answer of the GETs that stream: text/event-stream after JSON among the 200\'s media types, and Last-Event-ID', async () => {
    const live = ['#operations-Impianti-GetImpiantoFilesRequest', '#operations-Query-CaratteristicaGruppoQueryGet', '#operations-Query-SoggettoRecapitoQueryGet'];
    for (const id of [...live, '#operations-Query-SoggettoRecapitoQueryExportGet']) {
      const op = page.locator(id);
      await op.locator('.opblock-summary-control').click();
      await op.locator('.opblock-body').waitFor();
      const media = op.locator('.responses-wrapper .response-control-media-type select').first();
      const options = await media.locator('option').evaluateAll((found) => found.map((o) => o.getAttribute('value')));
      const params = await op.locator('tr[data-param-name]').evaluateAll((found) => found.map((r) => r.getAttribute('data-param-name')));
      if (live.includes(id)) {
        expect(options[0], id).to.equal('application/json');
        expect(options, id).to.include('text/event-stream');
        expect(params, id).to.include('Last-Event-ID');
        expect(await op.innerText(), id).to.include('Live answer.');
        // Its example is an answer event, the JSON example as its data.
        await media.selectOption('text/event-stream');
        await op.locator('.responses-wrapper .response .highlight-code').filter({ hasText: /^id: "[\w-]+"\s+data: \{/ }).first().waitFor();
        await media.selectOption('application/json');
      } else {
        expect(options, id).not.to.include('text/event-stream');
        expect(params, id).not.to.include('Last-Event-ID');
      }
      await op.locator('.opblock-summary-control').click();
    }
  });

  it('fills a live query\'s parameters with the contract\'s examples in "Try it out", which ask for JSON and find the demo record', async () => {
    const dialog = page.locator('.modal-ux');
    await page.locator('.auth-wrapper .authorize').click();
    // Signed in by the test before: "Logout" first, then the admin's token.
    await dialog.locator('button', { hasText: 'Logout' }).first().click();
    await dialog.locator('#auth-bearer-value').fill(await s.tokenFor(['Admin']));
    await dialog.locator('.auth-btn-wrapper button.authorize').click();
    await dialog.locator('button.btn-done').click();
    const answer = await tryItOut(page.locator('#operations-Query-SoggettoRecapitoQueryGet'));
    expect(answer.status, answer.body).to.equal('200');
    expect((JSON.parse(answer.body) as { results: Array<{ id: number }> }).results.map((r) => r.id)).to.deep.equal([1]);
  });

  it('runs without script errors or Content-Security-Policy violations', () => {
    expect(problems).to.deep.equal([]);
  });
});

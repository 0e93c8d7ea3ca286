// Drives code-server on a model file: the CodeLens above the nn.Module class, a click on it,
// and the summary webview it opens (table and shape-flow picture).
// usage: node summary_driver.js <config.json>
// config: { url, folder, file, lens (text the lens contains), tab (the webview's title),
//           shot, fail_shots }
// Prints one line "RESULT <json>" with what it saw; each step records its own outcome.
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const result = { steps: {}, log: [] };
const t0 = Date.now();
const say = (...a) => {
  const line = `[${((Date.now() - t0) / 1000).toFixed(1)}s] ` + a.join(' ');
  result.log.push(line);
  console.error(line);
};
let currentPage = null;

async function step(name, fn) {
  const s = Date.now();
  try {
    const r = await fn();
    result.steps[name] = { ok: true, ms: Date.now() - s, ...(r || {}) };
  } catch (e) {
    result.steps[name] = { ok: false, ms: Date.now() - s, error: String((e && e.message) || e).split('\n')[0] };
    if (cfg.fail_shots && currentPage) {
      const p = path.join(cfg.fail_shots, `failed-${name}.png`);
      await currentPage.screenshot({ path: p }).catch(() => {});
      result.steps[name].screenshot = p;
    }
  }
  say(name, JSON.stringify(result.steps[name]));
  return result.steps[name];
}

// The text of every frame (webviews are nested iframes), to find the summary page.
async function frameTexts(page) {
  const out = [];
  for (const f of page.frames()) {
    try {
      out.push(await f.evaluate(() => (document.body ? document.body.innerText : '')));
    } catch (e) { /* a frame going away */ }
  }
  return out;
}

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'shapesense-chrome-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: cfg.chromium || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1600, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  currentPage = page;
  try {
    await step('workbench', async () => {
      await page.goto(`${cfg.url}/?folder=${encodeURIComponent(cfg.folder)}`, { waitUntil: 'domcontentloaded' });
      await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
      await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60000 });
    });
    await step('open_file', async () => {
      await page.locator('.explorer-folders-view .monaco-list-row', { hasText: cfg.file }).first().click();
      await page.waitForSelector('.editor-group-container .monaco-editor .view-lines', { timeout: 30000 });
    });
    await step('code_lens', async () => {
      const lens = page.locator('.codelens-decoration a', { hasText: cfg.lens }).first();
      await lens.waitFor({ state: 'visible', timeout: 90000 });
      return { text: await lens.innerText() };
    });
    await step('open_summary', async () => {
      await page.locator('.codelens-decoration a', { hasText: cfg.lens }).first().click();
      await page.locator('.tab', { hasText: cfg.tab }).first().waitFor({ state: 'visible', timeout: 30000 });
      let texts = [];
      for (let i = 0; i < 60; i++) {
        texts = await frameTexts(page);
        if (texts.some((t) => t.includes('Total params') && t.includes('Shape flow'))) break;
        await page.waitForTimeout(500);
      }
      const summary = texts.find((t) => t.includes('Total params')) || '';
      let svgEdges = 0;
      for (const f of page.frames()) {
        try { svgEdges = Math.max(svgEdges, await f.evaluate(() => document.querySelectorAll('svg g.edge').length)); } catch (e) { /* */ }
      }
      await page.waitForTimeout(500);
      await page.screenshot({ path: cfg.shot });
      return { summary, svg_edges: svgEdges };
    });
  } finally {
    console.log('RESULT ' + JSON.stringify(result));
    await ctx.close().catch(() => {});
  }
})();

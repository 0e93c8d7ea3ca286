// Drives code-server on a model file: the CodeLens above the nn.Module class, a click on it,
// and the summary webview it opens (table and shape-flow picture).
// usage: node summary_driver.js <config.json>
// config: { url, folder, file, lens (text the lens contains), tab (the webview's title),
//           shot, fail_shots }
// Prints one line "RESULT <json>" with what it saw; each step records its own outcome.
const h = require('./harness').session(process.argv[2]);
const { cfg, say, step } = h;

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
  const page = await h.open({ width: 1600, height: 1000 });
  try {
    await h.workbench();
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
    await h.finish();
  }
})();

// Drives code-server (real VS Code in the browser) on a Jupyter notebook, in headless Chromium.
// usage: node notebook_driver.js <config.json>
// config: { url, folder, file, shot, fail_shots, hover: { line, token, want }, squiggle: { line },
//           quickfix: { token, title, fixed } }
//   hover.line / squiggle.line: text a cell line contains (as drawn: inlay hints are part of
//   the drawn text, so not across an assignment's `=`); hover.token: the word to hover in it;
//   quickfix: where on the squiggled line to ask for fixes, the fix to pick, text it leaves.
// Prints one line "RESULT <json>" with what it saw; each step records its own outcome.
const h = require('./harness').session(process.argv[2]);
const { cfg, say, step } = h;


// the editors of the notebook's cells (each cell is its own Monaco editor)
const CELL_EDITORS = '.notebookOverlay .cell-editor-container .monaco-editor';

// Screen box of `token` in the first cell line containing `lineText` (null if not drawn).
// Measured on the drawn text itself (a DOM Range over Monaco's spans), not from a char width.
async function tokenBox(page, lineText, token) {
  return page.evaluate(({ lineText, token, CELL_EDITORS }) => {
    const norm = (s) => s.replace(/\u00a0/g, ' ');
    for (const ed of document.querySelectorAll(CELL_EDITORS)) {
      for (const line of ed.querySelectorAll('.view-line')) {
        const text = norm(line.textContent);
        if (!text.includes(lineText)) continue;
        const at = text.indexOf(token, text.indexOf(lineText));
        if (at < 0) continue;
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
        let seen = 0;
        let node;
        while ((node = walker.nextNode())) {
          const len = node.textContent.length;
          if (seen + len > at) {
            const range = document.createRange();
            range.setStart(node, at - seen);
            range.setEnd(node, Math.min(len, at - seen + token.length));
            const r = range.getBoundingClientRect();
            return { x: r.left + r.width / 2, y: r.top + r.height / 2, left: r.left, text };
          }
          seen += len;
        }
      }
    }
    return null;
  }, { lineText, token, CELL_EDITORS });
}

async function hoverToken(page, lineText, token, want, tries = 40) {
  let last = '';
  for (let i = 0; i < tries; i++) {
    const box = await tokenBox(page, lineText, token);
    if (!box) { await page.waitForTimeout(500); continue; }
    await page.mouse.move(box.x - 3, box.y + 1);
    await page.mouse.move(box.x, box.y, { steps: 3 });
    try {
      await page.waitForSelector('.monaco-hover-content', { timeout: 2500, state: 'visible' });
      last = await page.locator('.monaco-hover-content').first().innerText();
      if (want.test(last)) {
        await page.waitForTimeout(800); // fade-in
        return { ok: true, text: last, attempts: i + 1 };
      }
    } catch (e) { /* no hover yet: the server may still be starting */ }
    await page.mouse.move(5, 5);
    await page.keyboard.press('Escape');
    await page.waitForTimeout(1000);
  }
  return { ok: false, text: last };
}

// Squiggles drawn in the cell editor that holds `lineText`: count and the lines they sit on.
async function squiggles(page, lineText) {
  return page.evaluate(({ lineText, CELL_EDITORS }) => {
    const norm = (s) => s.replace(/\u00a0/g, ' ');
    for (const ed of document.querySelectorAll(CELL_EDITORS)) {
      const lines = [...ed.querySelectorAll('.view-line')];
      if (!lines.some((l) => norm(l.textContent).includes(lineText))) continue;
      const marks = [...ed.querySelectorAll('.squiggly-error')];
      const on = marks.map((m) => {
        const top = m.getBoundingClientRect().top;
        const row = lines.find((l) => Math.abs(l.getBoundingClientRect().top - top) < 4);
        return row ? norm(row.textContent) : null;
      });
      return { count: marks.length, lines: on };
    }
    return { count: -1, lines: [] };
  }, { lineText, CELL_EDITORS });
}

(async () => {
  const page = await h.open({ width: 1400, height: 1000 });
  try {
    await h.workbench();
    await step('open_notebook', async () => {
      await page.locator('.explorer-folders-view .monaco-list-row', { hasText: cfg.file }).first().click();
      await page.waitForSelector(`${CELL_EDITORS} .view-lines`, { timeout: 60000 });
      await page.waitForTimeout(1500);
      const cells = await page.locator(CELL_EDITORS).count();
      return { cells };
    });
    await step('hover', async () => {
      const h = await hoverToken(page, cfg.hover.line, cfg.hover.token, new RegExp(cfg.hover.want));
      await page.screenshot({ path: cfg.shot });
      say('screenshot', cfg.shot);
      if (!h.ok) throw new Error(`no hover matching ${cfg.hover.want} (last hover: ${JSON.stringify(h.text)})`);
      return h;
    });
    await page.mouse.move(5, 5);
    await page.keyboard.press('Escape');
    await step('squiggle', async () => {
      let s = { count: 0, lines: [] };
      for (let i = 0; i < 30 && s.count < 1; i++) {
        s = await squiggles(page, cfg.squiggle.line);
        if (s.count < 1) await page.waitForTimeout(500);
      }
      if (s.count < 1) throw new Error(`no squiggle in the cell holding ${JSON.stringify(cfg.squiggle.line)}`);
      return s;
    });
    await step('quickfix', async () => {
      // the squiggle in the model's cell: put the cursor on it, Ctrl+. and pick the repair
      const box = await tokenBox(page, cfg.squiggle.line, cfg.quickfix.token);
      if (!box) throw new Error('the squiggled line is not drawn');
      await page.mouse.click(box.x, box.y);
      await page.waitForTimeout(300);
      await page.keyboard.press('Control+Period');
      const rows = page.locator('.action-widget .monaco-list-row');
      await rows.first().waitFor({ state: 'visible', timeout: 15000 });
      await page.waitForTimeout(500);
      const items = await rows.allInnerTexts();
      const fix = rows.filter({ hasText: cfg.quickfix.title }).first();
      if (!(await fix.count())) throw new Error(`no ${cfg.quickfix.title} among ${JSON.stringify(items)}`);
      await fix.click();
      let s = { count: -1 };
      for (let i = 0; i < 40 && s.count !== 0; i++) {
        await page.waitForTimeout(500);
        s = await squiggles(page, cfg.squiggle.line);
      }
      const fixed = await tokenBox(page, cfg.quickfix.fixed, cfg.quickfix.fixed);
      return { items, remaining: s.count, fixed_line: fixed ? fixed.text : null };
    });
    await step('edit_other_cell', async () => {
      // retype a number in the first cell: the model's cell must be re-checked (no edit there)
      const { line, old, replacement } = cfg.edit;
      const box = await tokenBox(page, line, old);
      if (!box) throw new Error(`${JSON.stringify(line)} is not drawn`);
      await page.mouse.click(box.left + 1, box.y);
      await page.keyboard.press('End'); // `old` ends the line: select it from the end
      for (let i = 0; i < old.length; i++) await page.keyboard.press('Shift+ArrowLeft');
      await page.keyboard.type(replacement);
      let s = { count: 0, lines: [] };
      for (let i = 0; i < 40 && s.count < 1; i++) {
        await page.waitForTimeout(500);
        s = await squiggles(page, cfg.squiggle.line);
      }
      // the model cell's inlay hints follow too (the server asks the client to refresh them)
      let hinted = null;
      // (up to 30 s: each keystroke of the edit is an analysis, and a hint request answered
      // between two of them shows the state before the last one until the next refresh)
      for (let i = 0; i < 60; i++) {
        hinted = await tokenBox(page, cfg.edit.hint_line, cfg.edit.hint_line);
        if (hinted && hinted.text.includes(cfg.edit.hint)) break;
        await page.waitForTimeout(500);
      }
      const edited = await tokenBox(page, replacement, replacement);
      await page.screenshot({ path: cfg.shot.replace(/\.png$/, '-edited.png') });
      return { ...s, edited_line: edited ? edited.text : null, hinted_line: hinted ? hinted.text : null };
    });
  } catch (e) {
    say('driver error:', String(e && e.stack || e));
  } finally {
    await h.finish();
  }
})();

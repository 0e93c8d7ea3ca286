// Drives code-server (real VS Code in the browser) in headless Chromium with playwright-core.
// usage: node driver.js <config.json>
// config: { url, folder, file, shots, scenario: "main" | "broken", lines: {...} }
// Prints one line "RESULT <json>" with what it saw; every step records its own outcome so that
// one failing check does not hide the others. Exit code 0 unless the browser itself failed.
const fs = require('fs');
const os = require('os');
const path = require('path');

const h = require('./harness').session(process.argv[2]);
const { cfg, result, say, step } = h;
const t0 = Date.now();

const EDITOR = '.editor-group-container .monaco-editor';

async function shot(page, name) {
  const p = path.isAbsolute(name) ? name : path.join(cfg.shots, name);
  await page.screenshot({ path: p });
  say('screenshot', p);
  return p;
}

async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill('>' + title);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
}

// Screen position of (1-based line, 0-based column) in the main editor.
async function posOf(page, line, col) {
  return page.evaluate(({ line, col, EDITOR }) => {
    const ed = document.querySelector(EDITOR);
    if (!ed) return null;
    const rowOf = (n) => {
      const num = [...ed.querySelectorAll('.line-numbers')].find((e) => e.textContent.trim() === String(n));
      if (!num) return null;
      const top = num.getBoundingClientRect().top;
      return [...ed.querySelectorAll('.view-line')].find((v) => Math.abs(v.getBoundingClientRect().top - top) < 3);
    };
    // char width from line 1 (a comment: no inlay hints there)
    const ref = rowOf(1);
    const target = rowOf(line);
    if (!ref || !target) return null;
    const span = ref.firstElementChild;
    const cw = span.getBoundingClientRect().width / span.textContent.length;
    const r = target.getBoundingClientRect();
    return { x: r.left + (col + 0.5) * cw, y: r.top + r.height / 2, text: target.textContent };
  }, { line, col, EDITOR });
}

async function lineText(page, line) {
  const p = await posOf(page, line, 0);
  return p ? p.text.replace(/\u00a0/g, ' ') : null;
}

async function hoverAt(page, line, col, want, tries = 15) {
  let last = '';
  for (let i = 0; i < tries; i++) {
    const pos = await posOf(page, line, col);
    if (!pos) { await page.waitForTimeout(500); continue; }
    await page.mouse.move(pos.x - 2, pos.y + 1);
    await page.mouse.move(pos.x, pos.y, { steps: 3 });
    try {
      await page.waitForSelector('.monaco-hover-content', { timeout: 2500, state: 'visible' });
      last = await page.locator('.monaco-hover-content').first().innerText();
      if (want.test(last)) {
        await page.waitForTimeout(800); // fade-in
        return { ok: true, text: last, attempts: i + 1 };
      }
    } catch (e) { /* no hover yet */ }
    await page.mouse.move(5, 5);
    await page.keyboard.press('Escape');
    await page.waitForTimeout(1000);
  }
  return { ok: false, text: last };
}

async function hidePanel(page) {
  for (const title of ['View: Hide Panel', 'View: Close Panel']) {
    try {
      await runCommand(page, title);
      break;
    } catch (e) {
      await page.keyboard.press('Escape');
    }
  }
  await page.waitForTimeout(500);
}

async function outputText(page) {
  return page.evaluate(() => {
    const v = document.querySelector('.part.panel .output-view, .part.panel [id="workbench.panel.output"]');
    const root = v || document.querySelector('.part.panel');
    return root ? [...root.querySelectorAll('.view-line')].map((l) => l.textContent.replace(/\u00a0/g, ' ')).join('\n') : '';
  });
}

(async () => {
  const page = await h.open({ width: 1400, height: 900 });
  try {
    await h.workbench();
    await step('open_file', async () => {
      await page.locator('.explorer-folders-view .monaco-list-row', { hasText: cfg.file }).first().click();
      await page.waitForSelector(`${EDITOR} .view-lines`, { timeout: 30000 });
      await page.waitForTimeout(1000);
    });

    if (cfg.scenario === 'view') {
      // just look: wait for the analysis, optionally hover a position, take one screenshot
      await step('view', async () => {
        await page.waitForTimeout(cfg.wait_ms || 8000);
        let hover = null;
        if (cfg.hover) hover = await hoverAt(page, cfg.hover.line, cfg.hover.col, /Tensor|shape/, 10);
        await shot(page, cfg.shot || 'view.png');
        const item = page.locator('.statusbar-item', { hasText: 'ShapeSense' }).first();
        const status = await item.getAttribute('aria-label').catch(() => null);
        return { hover, status };
      });
      return;
    }

    if (cfg.scenario === 'broken') {
      // the server cannot start: a notification must say why and offer the buttons
      await step('notification', async () => {
        const toast = page.locator('.notification-toast', { hasText: new RegExp(cfg.toast || 'ShapeSense') }).first();
        await toast.waitFor({ state: 'visible', timeout: 60000 });
        const text = await toast.innerText();
        const buttons = await toast.locator('.monaco-button').allInnerTexts();
        await page.waitForTimeout(500);
        await shot(page, cfg.shot || 'notification.png');
        const all = await page.locator('.notification-toast').allInnerTexts();
        return { text, buttons, all };
      });
      await step('status_error', async () => {
        const item = page.locator('.statusbar-item', { hasText: 'ShapeSense' }).first();
        await item.waitFor({ state: 'visible', timeout: 10000 });
        return { label: await item.getAttribute('aria-label') };
      });
      await step('show_output_button', async () => {
        const toast = page.locator('.notification-toast', { hasText: new RegExp(cfg.toast || 'ShapeSense') }).first();
        await toast.locator('.monaco-button', { hasText: 'Show Output' }).click();
        await page.waitForTimeout(1500);
        return { output: await outputText(page) };
      });
      return;
    }

    // ---------------------------------------------------------------- main scenario
    const L = cfg.lines;
    await step('activation', async () => {
      const item = page.locator('.statusbar-item', { hasText: 'ShapeSense' }).first();
      await item.waitFor({ state: 'visible', timeout: 60000 });
      let label = '';
      for (let i = 0; i < 60; i++) {
        label = (await item.getAttribute('aria-label')) || '';
        if (/ready|analysing|error/.test(label)) break;
        await page.waitForTimeout(500);
      }
      await runCommand(page, 'ShapeSense: Show Output');
      await page.waitForTimeout(1500);
      const output = await outputText(page);
      const toasts = await page.locator('.notification-toast').allInnerTexts();
      await shot(page, 'activation.png');
      return { status: label, output, toasts };
    });
    // close the panel again so that the editor has room
    await hidePanel(page);

    await step('hover', async () => {
      const h = await hoverAt(page, L.driver_x, 0, /Tensor\[/);
      await shot(page, 'hover.png');
      if (!h.ok) throw new Error(`no Tensor hover on x (last hover: ${JSON.stringify(h.text)})`);
      return h;
    });
    await page.mouse.move(5, 5);
    await page.keyboard.press('Escape');

    await step('inlay', async () => {
      // the drawn line is the source plus the injected hint text: take the difference
      const src = L.driver_x_src;
      const hintOf = (text) => {
        let a = 0;
        while (a < src.length && text[a] === src[a]) a++;
        let b = 0;
        while (b < src.length - a && text[text.length - 1 - b] === src[src.length - 1 - b]) b++;
        return text.slice(a, text.length - b);
      };
      let text = '';
      for (let i = 0; i < 30; i++) {
        text = (await lineText(page, L.driver_x)) || '';
        if (/Tensor/.test(hintOf(text))) break;
        await page.waitForTimeout(500);
      }
      await shot(page, 'inlay.png');
      const hint = hintOf(text);
      if (!/Tensor/.test(hint)) throw new Error(`no inlay hint in line ${L.driver_x}: ${JSON.stringify(text)}`);
      return { line: text, hint: hint.trim() };
    });

    await step('settings_live', async () => {
      // a settings change applies without a reload: untick "Inlay Hints" in the Settings UI
      // (opened beside the file), see the hints go, tick it again, see them come back
      const hasHint = async () => {
        const t = (await lineText(page, L.driver_x)) || '';
        return t.replace(/\s+$/, '') !== L.driver_x_src.replace(/\s+$/, '') && /Tensor/.test(t);
      };
      const waitFor = async (want) => {
        for (let i = 0; i < 60; i++) {
          if ((await hasHint()) === want) return true;
          await page.waitForTimeout(250);
        }
        return false;
      };
      // (VS Code 1.139 shows the Settings UI as a dialog over the editor; the editor stays live)
      await runCommand(page, 'Preferences: Open Settings (UI)');
      await page.waitForSelector('.settings-editor', { timeout: 15000 });
      await page.waitForTimeout(800);
      await page.keyboard.type('shapesense.inlayHints');
      const box = page.locator('.settings-editor .setting-item-bool', { hasText: 'Inlay Hints' })
        .locator('.setting-value-checkbox').first();
      await box.waitFor({ state: 'visible', timeout: 15000 });
      const s1 = Date.now();
      await box.click();
      const gone = await waitFor(false);
      const offMs = Date.now() - s1;
      const offLine = await lineText(page, L.driver_x);
      await shot(page, path.join(cfg.fail_shots || os.tmpdir(), 'settings-inlay-off.png'));
      const s2 = Date.now();
      await box.click();
      const back = await waitFor(true);
      const onMs = Date.now() - s2;
      // close the settings again
      await page.keyboard.press('Escape');
      await page.waitForTimeout(300);
      if (await page.locator('.settings-editor').isVisible()) {
        await runCommand(page, 'View: Close Editor').catch(() => {});
      }
      await page.waitForTimeout(500);
      if (!gone || !back) throw new Error(`inlay hints off: ${gone} (${JSON.stringify(offLine)}), on again: ${back}`);
      return { off_ms: offMs, on_ms: onMs, off_line: offLine };
    });

    await step('enable_toggle', async () => {
      // shapesense.enable off hides the squiggle at once; on brings it back
      const count = () => page.locator(`${EDITOR} .squiggly-error`).count();
      const waitCount = async (pred) => {
        for (let i = 0; i < 80; i++) {
          if (pred(await count())) return true;
          await page.waitForTimeout(250);
        }
        return false;
      };
      if (!(await waitCount((n) => n > 0))) throw new Error('no squiggle to begin with');
      await runCommand(page, 'Preferences: Open Settings (UI)');
      await page.waitForSelector('.settings-editor', { timeout: 15000 });
      await page.waitForTimeout(800);
      await page.keyboard.type('shapesense.enable');
      const box = page.locator('.settings-editor .setting-item-bool', { hasText: 'Enable' })
        .locator('.setting-value-checkbox').first();
      await box.waitFor({ state: 'visible', timeout: 15000 });
      const s1 = Date.now();
      await box.click();
      const off = await waitCount((n) => n === 0);
      const offMs = Date.now() - s1;
      const s2 = Date.now();
      await box.click();
      const on = await waitCount((n) => n > 0);
      const onMs = Date.now() - s2;
      await page.keyboard.press('Escape');
      await page.waitForTimeout(500);
      if (!off || !on) throw new Error(`squiggle hidden: ${off}, back: ${on}`);
      return { off_ms: offMs, on_ms: onMs };
    });

    await step('crash_restart', async () => {
      // kill the Python server (only ours: same process group as this code-server)
      const pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
        try {
          const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
          const pgrp = parseInt(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2], 10);
          const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          // the extension runs `<python> -I -u <ext>/bundled/tool/launch.py [--bundled] serve --stdio`
          const server = cmd.some((a) => a === 'shapesense' || a.endsWith(path.join('bundled', 'tool', 'launch.py')));
          return pgrp === cfg.pgid && server && cmd.includes('serve');
        } catch (e) { return false; }
      });
      if (pids.length !== 1) throw new Error(`expected one server process in group ${cfg.pgid}, found ${pids}`);
      process.kill(parseInt(pids[0], 10), 'SIGKILL');
      const toast = page.locator('.notification-toast', { hasText: 'stopped unexpectedly' }).first();
      await toast.waitFor({ state: 'visible', timeout: 20000 });
      const text = await toast.innerText();
      await page.waitForTimeout(300);
      await shot(page, 'crash-restart.png');
      const item = page.locator('.statusbar-item', { hasText: 'ShapeSense' }).first();
      let label = '';
      for (let i = 0; i < 60; i++) {
        label = (await item.getAttribute('aria-label')) || '';
        if (/ready/.test(label)) break;
        await page.waitForTimeout(500);
      }
      // close the toast, then the server must answer again
      await toast.locator('.codicon-notifications-clear, .codicon-close').first().click().catch(() => {});
      const h = await hoverAt(page, L.driver_x, 0, /Tensor\[/, 10);
      await page.mouse.move(5, 5);
      await page.keyboard.press('Escape');
      if (!h.ok) throw new Error(`no hover after the restart (status ${label})`);
      return { toast: text, status: label, hover: h.text };
    });

    await step('squiggle', async () => {
      await page.waitForSelector(`${EDITOR} .squiggly-error`, { timeout: 45000 });
      const sq = page.locator(`${EDITOR} .squiggly-error`).first();
      const box = await sq.boundingBox();
      // which line is it on?
      const line = await page.evaluate(({ y, EDITOR }) => {
        const ed = document.querySelector(EDITOR);
        const num = [...ed.querySelectorAll('.line-numbers')].find((n) => {
          const r = n.getBoundingClientRect();
          return y >= r.top - 1 && y <= r.bottom + 1;
        });
        return num ? parseInt(num.textContent.trim(), 10) : null;
      }, { y: box.y + box.height / 2, EDITOR });
      // open the Problems panel
      await runCommand(page, 'View: Focus Problems');
      await page.waitForSelector('.markers-panel .monaco-list-row', { timeout: 20000 });
      await page.waitForTimeout(500);
      const problems = await page.locator('.markers-panel .monaco-list-row').allInnerTexts();
      // hover the squiggle to show the message next to it
      await page.mouse.move(box.x + Math.min(box.width / 2, 40), box.y + box.height / 2 - 4, { steps: 3 });
      let hover = '';
      try {
        await page.waitForSelector('.monaco-hover-content', { timeout: 5000, state: 'visible' });
        await page.waitForTimeout(800);
        hover = await page.locator('.monaco-hover-content').first().innerText();
      } catch (e) { /* screenshot anyway */ }
      await shot(page, 'squiggle.png');
      return { line, count: await page.locator(`${EDITOR} .squiggly-error`).count(), problems, hover };
    });
    await page.mouse.move(5, 5);
    await page.keyboard.press('Escape');

    await step('quickfix', async () => {
      const sq = page.locator(`${EDITOR} .squiggly-error`).first();
      if (!(await sq.count())) throw new Error('no squiggle to fix');
      const box = await sq.boundingBox();
      await page.mouse.click(box.x + Math.min(box.width / 2, 20), box.y + box.height / 2 - 4);
      await page.waitForTimeout(300);
      await page.keyboard.press('Control+Period');
      const rows = page.locator('.action-widget .monaco-list-row');
      await rows.first().waitFor({ state: 'visible', timeout: 15000 });
      await page.waitForTimeout(500);
      const items = await rows.allInnerTexts();
      await shot(page, 'quickfix.png');
      const fix = rows.filter({ hasText: cfg.fix_pattern || 'in_features' }).first();
      if (!(await fix.count())) throw new Error(`no matching quick fix among ${JSON.stringify(items)}`);
      await fix.click();
      let remaining = -1;
      for (let i = 0; i < 40; i++) {
        await page.waitForTimeout(500);
        remaining = await page.locator(`${EDITOR} .squiggly-error`).count();
        if (remaining === 0) break;
      }
      const fixed = await lineText(page, L.fc1_def);
      await page.waitForTimeout(500);
      await shot(page, 'quickfix-applied.png');
      return { items, remaining, fixed_line: fixed };
    });

    await step('annotate', async () => {
      await page.mouse.move(5, 5);
      await page.keyboard.press('Escape');
      // focus the editor: a point inside its (fixed) box; .view-lines scrolls with the text, so
      // its own top-left corner can lie above the visible area (a code lens makes it taller)
      await page.locator(EDITOR).first().click({ position: { x: 300, y: 40 } });
      await runCommand(page, 'ShapeSense: Annotate Shapes in Current File');
      await page.waitForTimeout(2500);
      const toasts = await page.locator('.notification-toast').allInnerTexts();
      await shot(page, 'annotate.png');
      await page.keyboard.press('Control+S'); // pytest reads the saved file
      await page.waitForTimeout(1000);
      return { toasts };
    });

    await step('final_status', async () => {
      const item = page.locator('.statusbar-item', { hasText: 'ShapeSense' }).first();
      let label = '';
      for (let i = 0; i < 30; i++) {
        label = (await item.getAttribute('aria-label')) || '';
        if (/ready/.test(label)) break;
        await page.waitForTimeout(500);
      }
      return { status: label };
    });
  } finally {
    result.total_ms = Date.now() - t0;
    await h.finish();
  }
})().catch((e) => {
  console.error('DRIVER FAILED:', e);
  process.exit(1);
});

// What the code-server drivers share: their config and result log, a step runner that records
// each step's outcome (and a screenshot when it fails), headless Chromium, and the workbench.
// usage (in a driver):  const h = require('./harness').session(process.argv[2]);
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

function session(configPath) {
  const cfg = JSON.parse(fs.readFileSync(configPath, 'utf8'));
  const result = { steps: {}, log: [] };
  const t0 = Date.now();
  const h = { cfg, result, page: null, ctx: null };

  h.say = (...a) => {
    const line = `[${((Date.now() - t0) / 1000).toFixed(1)}s] ` + a.join(' ');
    result.log.push(line);
    console.error(line);
  };

  // One check: its outcome is recorded whatever it throws, so one failure hides no other.
  h.step = async (name, fn) => {
    const s = Date.now();
    try {
      const r = await fn();
      result.steps[name] = { ok: true, ms: Date.now() - s, ...(r || {}) };
    } catch (e) {
      result.steps[name] = { ok: false, ms: Date.now() - s, error: String((e && e.message) || e).split('\n')[0],
        at: String((e && e.stack) || '').split('\n').find((l) => l.includes('driver.js')) };
      if (cfg.fail_shots && h.page) {
        const p = path.join(cfg.fail_shots, `failed-${name}.png`);
        await h.page.screenshot({ path: p }).catch(() => {});
        result.steps[name].screenshot = p;
      }
    }
    h.say(name, JSON.stringify(result.steps[name]));
    return result.steps[name];
  };

  // Headless Chromium on code-server with the config's folder, the workbench loaded.
  h.open = async (viewport) => {
    h.profile = fs.mkdtempSync(path.join(os.tmpdir(), 'shapesense-chrome-'));
    h.ctx = await chromium.launchPersistentContext(h.profile, {
      executablePath: cfg.chromium || '/usr/bin/chromium',
      headless: true,
      viewport,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    h.page = h.ctx.pages()[0] || (await h.ctx.newPage());
    h.page.on('pageerror', (e) => h.say('pageerror:', e.message));
    return h.page;
  };

  h.workbench = () => h.step('workbench', async () => {
    await h.page.goto(`${cfg.url}/?folder=${encodeURIComponent(cfg.folder)}`, { waitUntil: 'domcontentloaded' });
    await h.page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    await h.page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60000 });
  });

  // The one line the Python test reads, then the browser closed.
  h.finish = async () => {
    console.log('RESULT ' + JSON.stringify(result));
    if (h.ctx) await h.ctx.close().catch(() => {});
    if (h.profile) fs.rmSync(h.profile, { recursive: true, force: true });
  };
  return h;
}

module.exports = { session };

// Opens a pdbench HTML report in headless Chromium: no console errors, no
// network requests, every chart drawn (a non-empty SVG or canvas), and a
// screenshot for people to look at.
// Usage: node browser_test.mjs PDBENCH OUT_DIR RESULTS_DIR...
// Exits 77 (CTest's skip code here) with the reason when Chromium or the
// npm packages are missing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SKIP = 77;
const CHROMIUM = '/usr/bin/chromium';
const reportsDir = fileURLToPath(new URL('../../reports/', import.meta.url));
const [pdbench, outDir, ...results] = process.argv.slice(2);
if (!pdbench || !outDir || results.length === 0) {
  console.error('usage: node browser_test.mjs PDBENCH OUT_DIR RESULTS_DIR...');
  process.exit(2);
}
if (!existsSync(CHROMIUM)) {
  console.log(`SKIP: ${CHROMIUM} not found (Debian package chromium; scripts/setup.sh installs it)`);
  process.exit(SKIP);
}
let chromium;
try {
  ({ chromium } = createRequire(join(reportsDir, 'package.json'))('playwright-core'));
} catch {
  console.log(`SKIP: playwright-core is not installed under ${reportsDir} (run scripts/setup.sh)`);
  process.exit(SKIP);
}

const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };

mkdirSync(outDir, { recursive: true });
const html = join(outDir, 'browser-report.html');
const made = spawnSync(pdbench, ['report', ...results, '-o', html], { stdio: 'inherit' });
if (made.status !== 0) {
  console.error(`FAIL: pdbench report exited with ${made.status}`);
  process.exit(1);
}

const profile = mkdtempSync(join(tmpdir(), 'pdbench-chromium-'));
// A fresh, empty profile: nothing from earlier runs or the user leaks in.
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  viewport: { width: 1400, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await context.newPage();
  page.on('console', msg => check(msg.type() !== 'error', `console error: ${msg.text()}`));
  page.on('pageerror', err => failures.push(`page error: ${err.message}`));
  // The report must be self-contained: anything but the file itself is a failure.
  await page.route('**/*', route => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    failures.push(`network request: ${url}`);
    return route.abort();
  });
  await page.goto(pathToFileURL(html).href);
  await page.waitForSelector('body[data-rendered]', { state: 'attached', timeout: 60000 });
  check(await page.getAttribute('body', 'data-rendered') === 'ok', 'vega-embed reported a failed chart');

  const charts = await page.$$eval('.chart[data-spec]', els => els.map(el => {
    const svg = el.querySelector('svg');
    const canvas = el.querySelector('canvas');
    const box = (svg || canvas)?.getBoundingClientRect();
    return {
      id: el.id,
      marks: svg ? svg.querySelectorAll('path, line, rect, circle, text').length : 0,
      canvas: Boolean(canvas),
      width: box ? box.width : 0,
      height: box ? box.height : 0,
    };
  }));
  check(charts.length >= 7, `expected at least 7 charts, found ${charts.length}`);
  for (const id of ['chart-load-latency', 'chart-load-goodput', 'chart-load-pareto', 'chart-load-step-tokens', 'chart-load-step-queue', 'chart-load-step-ops'])
    check(charts.some(c => c.id === id), `${id}: missing (the load fixture's charts)`);
  for (const c of charts) {
    check(c.width > 100 && c.height > 100, `${c.id}: drawn at ${c.width}x${c.height}`);
    // The report's charts fit a 900 px column (a laptop's half screen).
    check(c.width <= 900, `${c.id}: ${c.width} px wide, more than 900`);
    check(c.canvas || c.marks > 10, `${c.id}: the SVG holds ${c.marks} marks`);
  }

  // Hovering a point shows its exact values in the tooltip.
  const point = (await page.$$('#chart-ttft svg path[aria-roledescription="point"]')).pop();
  if (point) {
    // Centred, so the sticky navigation bar does not cover it; points may
    // overlap, and any of them carries the value.
    await point.evaluate(el => el.scrollIntoView({ block: 'center' }));
    const box = await point.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const tip = await page.waitForSelector('#vg-tooltip-element.visible', { timeout: 5000 }).catch(() => null);
    check(tip && (await tip.textContent()).includes('TTFT median'), 'no tooltip with the TTFT value on hover');
  } else {
    failures.push('no TTFT point to hover');
  }

  const shot = join(outDir, 'report-screenshot.png');
  await page.mouse.move(0, 0);
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`${charts.length} charts rendered; screenshot: ${shot}`);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}

if (failures.length) {
  for (const f of failures) console.error(`FAIL: ${f}`);
  process.exit(1);
}
console.log('PASS');

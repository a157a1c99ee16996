// dashboard.mjs SCREENSHOT_DIR - the dashboard in a real headless Chromium
// (Debian's /usr/bin/chromium driven by playwright-core, a fresh profile):
// the page at $SIMT_URL loads with no console errors, its four views are
// drawn from the API, changing a field redraws a chart with the new answer,
// and screenshots are saved. Run by ctest through daemon.py, which starts
// simtd and sets SIMT_URL. Exits 77 (skipped) when chromium is missing.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const CHROMIUM = process.env.SIMT_CHROMIUM || "/usr/bin/chromium";
const url = process.env.SIMT_URL;
const shots = process.argv[2] || join(tmpdir(), "simt-dashboard-screenshots");

if (!existsSync(CHROMIUM)) {
  console.log(`SKIPPED: ${CHROMIUM} not found (apt-get install chromium; .ci/deps installs it)`);
  process.exit(77);
}
if (!url) {
  console.error("SIMT_URL is not set (run through tests/clients/daemon.py)");
  process.exit(2);
}
mkdirSync(shots, { recursive: true });

let failures = 0;
let checks = 0;
function check(cond, what) {
  checks++;
  if (cond) {
    console.log(`ok - ${what}`);
  } else {
    failures++;
    console.log(`FAIL - ${what}`);
  }
}

const profile = mkdtempSync(join(tmpdir(), "simt-chromium-"));
const started = Date.now();
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1400, height: 1000 },
});
const page = context.pages()[0] || (await context.newPage());
const consoleErrors = [];
const pageErrors = [];
const badAssets = [];
page.on("console", (msg) => {
  if (msg.type() === "error") consoleErrors.push({ text: msg.text(), url: msg.location().url || "" });
});
page.on("pageerror", (err) => pageErrors.push(String(err)));
page.on("response", (resp) => {
  const path = new URL(resp.url()).pathname;
  if (!path.startsWith("/v1/") && resp.status() >= 400) badAssets.push(`${resp.status()} ${path}`);
});
page.on("requestfailed", (req) => badAssets.push(`failed ${req.url()}`));

const dash = (expr) => page.evaluate(expr);
let expect422From = Infinity;

try {
  await page.goto(url + "/", { waitUntil: "load", timeout: 30000 });
  await page.waitForSelector("body[data-ready='1']", { timeout: 30000 });
  check(true, "page loaded and drew its views");

  // occupancy calculator: h200-sxm, 256 threads, 64 registers -> 50%, registers
  check((await page.textContent("#occ-value")) === "50%", "occupancy shows 50% for 256 threads x 64 registers on h200-sxm");
  check((await page.textContent("#occ-limiter")) === "registers", "the limiter is marked: registers");
  check((await page.textContent("#occ-limits tr.limiter th")) === "registers", "the limiter's row is highlighted");
  const sweep0 = await dash(() => {
    const c = window.simtDashboard.charts;
    const pick = (chart) => {
      const current = chart.data.datasets.find((d) => d.label.startsWith("current"));
      return { curve: chart.data.datasets[0].data, current: current.data[0], label: current.label };
    };
    return { block: pick(c.block), regs: pick(c.regs), smem: pick(c.smem) };
  });
  check(sweep0.block.curve.length === 32 && sweep0.block.curve[7].x === 256 && sweep0.block.curve[7].y === 0.5,
        "block-size graph: 32 points, 0.5 at 256 threads");
  check(sweep0.block.current.x === 256 && sweep0.block.current.y === 0.5 && sweep0.block.label.includes("registers"),
        "block-size graph marks the current point and its limiter");
  check(sweep0.regs.curve.length >= 200 && sweep0.regs.current.x === 64, "registers graph drawn, current point at 64");
  check(sweep0.smem.curve.length > 100 && sweep0.smem.current.x === 0, "shared-memory graph drawn, current point at 0");

  // roofline: ceilings per precision and memory level, the example kernel as a point
  const roof = await dash(() => {
    const d = window.simtDashboard.charts.roofline.data.datasets;
    return { labels: d.map((x) => x.label), scales: window.simtDashboard.charts.roofline.options.scales.x.type };
  });
  check(roof.scales === "logarithmic", "roofline x axis is logarithmic");
  check(roof.labels.some((l) => l.startsWith("DRAM")) && roof.labels.some((l) => l.startsWith("L2")),
        "roofline has DRAM and L2 ceilings");
  check(roof.labels.some((l) => l.includes("(tensor)")) && roof.labels.some((l) => l.includes("fp32 (CUDA cores)")),
        "roofline has tensor-core and CUDA-core compute ceilings");
  check(roof.labels.filter((l) => l.startsWith("●")).length === 1, "roofline shows the example kernel");
  // labels print three significant digits: 989.5e12 is "990 TFLOP/s", not a truncated "99"
  check(roof.labels.some((l) => l === "fp16/bf16 (tensor) 990 TFLOP/s"), "h200 bf16 ceiling labelled 990 TFLOP/s");

  // bank conflicts: 32 lanes x 32 banks, before and after padding
  const cells = await page.$$eval("#bank-before .cell", (els) => els.length);
  check(cells === 1024, "bank grid has 32 x 32 cells");
  const banks = await dash(() => window.simtDashboard.last.banks || null);
  if (banks) {
    check(banks.ways === 32, "stride 32 of 4-byte words: 32-way conflict (POST /v1/memory/banks)");
    const afterWays = await dash(() => (window.simtDashboard.last.banksAfter || {}).ways);
    check(afterWays === 1, `after the suggested padding (${banks.suggested_padding_elements}): 1-way`);
    const worstAfter = await page.$$eval("#bank-after .cell.hit", (els) => els.filter((e) => !e.classList.contains("w0")).length);
    check(worstAfter === 0, "the padded grid shows no conflicting cell");
  } else {
    console.log("# POST /v1/memory/banks is not in this daemon yet: grid drawn by the page");
  }

  // comparison table: one column per checked GPU
  const header = await page.$$eval("#cmp-table tr:first-child th", (els) => els.map((e) => e.textContent));
  check(header.includes("h200-sxm") && header.includes("a100-sxm4-80gb"), "comparison table has a column per GPU");
  const occRow = await page.$$eval("#cmp-table tr.model td", (els) => els.map((e) => e.textContent));
  check(occRow.some((t) => t.startsWith("50%")), "comparison shows the current kernel's occupancy");

  await page.screenshot({ path: join(shots, "dashboard.png"), fullPage: true });

  // change a field: 128 registers per thread -> 25%, and the graphs redraw
  const before = await dash(() => window.simtDashboard.updates.sweeps);
  await page.fill("#occ-regs", "128");
  await page.waitForFunction((n) => window.simtDashboard.updates.sweeps > n &&
                                    document.getElementById("occ-value")?.textContent === "25%", before, { timeout: 15000 });
  const sweep1 = await dash(() => {
    const c = window.simtDashboard.charts.block;
    const current = c.data.datasets.find((d) => d.label.startsWith("current"));
    const impossible = c.data.datasets.find((d) => d.label === "cannot launch");
    return { at256: c.data.datasets[0].data[7], current: current.data[0], impossible: impossible ? impossible.data.length : 0 };
  });
  check(sweep1.at256.y === 0.25 && sweep1.current.y === 0.25, "after 128 registers the block-size graph shows 0.25 at 256");
  check(sweep1.impossible === 16, "blocks over 512 threads of 128 registers are marked as unlaunchable");
  const regsCurrent = await dash(() => window.simtDashboard.charts.regs.data.datasets.find((d) => d.label.startsWith("current")).data[0].x);
  check(regsCurrent === 128, "the registers graph moved its current point to 128");
  await page.locator("#occupancy").screenshot({ path: join(shots, "occupancy-128-registers.png") });

  // an impossible configuration: an error, no crash (the browser logs the
  // 422 response itself; that line is expected from here on)
  expect422From = consoleErrors.length;
  await page.fill("#occ-block", "2048");
  await page.waitForSelector("#occ-error:not([hidden])", { timeout: 15000 });
  check((await page.textContent("#occ-error")).includes("unsatisfiable"), "2048 threads: the 422 unsatisfiable is shown");
  await page.fill("#occ-block", "256");
  await page.waitForFunction(() => document.getElementById("occ-value")?.textContent === "25%", null, { timeout: 15000 });

  // roofline: add a kernel through the form
  const roofBefore = await dash(() => window.simtDashboard.updates.roofline);
  await page.fill("#roof-name", "stream triad");
  await page.fill("#roof-flops", "2e9");
  await page.fill("#roof-dram", "2.4e10");
  await page.selectOption("#roof-precision", "fp32");
  await page.uncheck("#roof-tensor");
  await page.click("#roof-add");
  await page.waitForFunction((n) => window.simtDashboard.updates.roofline > n, roofBefore, { timeout: 15000 });
  const points = await dash(() => window.simtDashboard.charts.roofline.data.datasets.filter((d) => d.label.startsWith("●")).map((d) => d.data[0]));
  check(points.length === 2 && Math.abs(points[1].x - 2e9 / 2.4e10) < 1e-9, "the new kernel is plotted at its intensity");
  await page.locator("#roofline").screenshot({ path: join(shots, "roofline.png") });

  // banks: change the stride, the grid redraws
  const bankBefore = await dash(() => window.simtDashboard.updates.banks);
  await page.fill("#bank-stride", "2");
  await page.waitForFunction((n) => window.simtDashboard.updates.banks > n, bankBefore, { timeout: 15000 });
  await page.locator("#banks").screenshot({ path: join(shots, "banks-stride-2.png") });
  await page.fill("#bank-stride", "32");
  await page.waitForFunction((n) => window.simtDashboard.updates.banks > n + 1, bankBefore, { timeout: 15000 });
  await page.locator("#banks").screenshot({ path: join(shots, "banks-stride-32.png") });
  await page.locator("#compare").screenshot({ path: join(shots, "compare.png") });
  await page.screenshot({ path: join(shots, "dashboard-after.png"), fullPage: true });
} catch (err) {
  failures++;
  console.log(`FAIL - ${err.stack || err}`);
  await page.screenshot({ path: join(shots, "failure.png"), fullPage: true }).catch(() => {});
}

// No console errors, except the browser's own "Failed to load resource" line
// for API routes this daemon does not have yet (the page reports those).
const missing = await page.evaluate(() => window.simtDashboard ? window.simtDashboard.missingRoutes : []).catch(() => []);
const unexpected = consoleErrors.filter((e, i) => {
  const path = e.url ? new URL(e.url).pathname : "";
  if (!e.text.startsWith("Failed to load resource")) return true;
  if (missing.includes(path)) return false;
  return !(i >= expect422From && e.text.includes("status of 422") && path === "/v1/occupancy");
});
if (missing.length) console.log(`# routes not in this daemon yet: ${missing.join(", ")}`);
for (const e of unexpected) console.log(`# console error: ${e.text} (${e.url})`);
for (const e of pageErrors) console.log(`# page error: ${e}`);
for (const e of badAssets) console.log(`# asset: ${e}`);
check(unexpected.length === 0 && pageErrors.length === 0, "no console errors");
check(badAssets.length === 0, "every page asset loaded (/, /style.css, /app.js, /static/chart.js)");

await context.close();
rmSync(profile, { recursive: true, force: true });
console.log(`# screenshots in ${shots}; ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`${checks - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);

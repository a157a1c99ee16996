// dashboard_phone.mjs SCREENSHOT_DIR - the dashboard on a phone-sized
// viewport (390 x 844) in headless Chromium: no sideways scroll; the state
// comes back from a URL (every input of the query string lands in its
// field, and the answers follow it); the URL follows the inputs; each chart
// has a text alternative (aria-label and a data table) and CSV and PNG
// export; added roofline kernels survive a reload; the calculator shows the
// allocated registers and shared memory, and the waves of a grid. Saves
// dashboard-390.png (look at it). Run through daemon.py (SIMT_URL).
import { mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBrowser, tally } from "./browser.mjs";

const url = process.env.SIMT_URL;
const shots = process.argv[2] || join(tmpdir(), "simt-dashboard-screenshots");
mkdirSync(shots, { recursive: true });
const { check, fail, done } = tally();
const { page, errors, close } = await openBrowser({ width: 390, height: 844 });
const ready = () => page.waitForSelector("body[data-ready='1']", { timeout: 30000 });

try {
  const state = "?occ-gpu=a100-sxm4-80gb&occ-block=128&occ-regs=32&occ-dynamic=8192&occ-grid=2000" +
                "&roof-gpu=h100-sxm&roof-precision=bf16&bank-stride=4&bank-element=8&cmp=h100-sxm,l4";
  await page.goto(url + "/" + state, { waitUntil: "load", timeout: 30000 });
  await ready();

  const width = await page.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, inner: window.innerWidth }));
  check(width.scroll <= width.inner, `no horizontal scroll at 390 px (scrollWidth ${width.scroll}, innerWidth ${width.inner})`);
  if (width.scroll > width.inner) {
    const wide = await page.evaluate(() => [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(0, 8).map((e) => `${e.tagName}#${e.id}.${e.className} right=${Math.round(e.getBoundingClientRect().right)}`));
    console.log(`# wider than the viewport: ${wide.join(" | ")}`);
  }
  await page.screenshot({ path: join(shots, "dashboard-390.png"), fullPage: false });
  await page.screenshot({ path: join(shots, "dashboard-390-full.png"), fullPage: true });
  for (const id of ["roofline", "banks", "compare"]) await page.locator(`#${id}`).screenshot({ path: join(shots, `phone-${id}.png`) });

  // the URL's state is in the inputs ...
  const values = await page.evaluate(() => Object.fromEntries(
    ["occ-gpu", "occ-block", "occ-regs", "occ-dynamic", "occ-grid", "roof-gpu", "roof-precision", "bank-stride", "bank-element"]
      .map((id) => [id, document.getElementById(id).value])));
  check(values["occ-gpu"] === "a100-sxm4-80gb" && values["occ-block"] === "128" && values["occ-regs"] === "32" &&
        values["occ-dynamic"] === "8192" && values["occ-grid"] === "2000", "occupancy inputs restored from the URL");
  check(values["roof-gpu"] === "h100-sxm" && values["roof-precision"] === "bf16", "roofline inputs restored from the URL");
  check(values["bank-stride"] === "4" && values["bank-element"] === "8", "bank inputs restored from the URL");
  const cmp = await page.$$eval("#cmp-gpus input:checked", (els) => els.map((e) => e.value).sort());
  check(cmp.join(",") === "h100-sxm,l4", "comparison GPUs restored from the URL");
  // ... and the answers follow them
  const occ = await page.evaluate(() => window.simtDashboard.last.occupancy.data);
  check(occ.gpu === "a100-sxm4-80gb", "the occupancy answer is for the URL's GPU");
  const text = await page.textContent("#occ-result");
  check(/waves of the grid/.test(text) && occ.waves !== undefined, "the grid's waves are shown");
  check(text.includes(`allocated per block: ${occ.allocated.registers_per_block} registers`), "allocated registers are shown");
  const header = await page.$$eval("#cmp-table tr:first-child th", (els) => els.map((e) => e.textContent).filter(Boolean));
  check(header.join(",") === "h100-sxm,l4", "the comparison has the URL's GPUs");

  // the URL follows the inputs
  await page.fill("#occ-regs", "40");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("occ-regs") === "40", null, { timeout: 5000 });
  check(true, "the URL follows an edited input");
  const inUrl = await page.evaluate(() => [...new URLSearchParams(location.search).keys()]);
  const inputs = await page.$$eval("form input[id], form select[id]", (els) => els.map((e) => e.id));
  check(inputs.every((id) => inUrl.includes(id)) && inUrl.includes("cmp"), `every input is in the URL (${inputs.length} + cmp)`);

  // text alternatives and export on every chart
  const charts = await page.$$eval("canvas", (els) => els.map((c) => ({
    id: c.id, role: c.getAttribute("role"), label: c.getAttribute("aria-label") || "",
    rows: c.closest("figure").querySelectorAll("table.chart-data tr").length,
    exports: [...c.closest("figure").querySelectorAll("button[data-export]")].map((b) => b.dataset.export).join(","),
  })));
  check(charts.length === 6, "six charts");
  for (const c of charts) {
    check(c.role === "img" && c.label.length > 40, `${c.id}: aria-label "${c.label.slice(0, 70)}…"`);
    check(c.rows > 2, `${c.id}: a data table of ${c.rows - 1} points`);
    check(c.exports === "csv,png", `${c.id}: CSV and PNG export`);
  }
  const blockLabel = charts.find((c) => c.id === "chart-block").label;
  check(blockLabel.includes("a100-sxm4-80gb"), "the block-size chart's text names the GPU");
  const [csvDownload] = await Promise.all([page.waitForEvent("download"),
    page.click("#chart-block >> xpath=ancestor::figure//button[@data-export='csv']")]);
  const csv = readFileSync(await csvDownload.path(), "utf8").trim().split("\n");
  check(csv[0] === "series,threads per block,occupancy" && csv.length > 30, `CSV export: ${csv.length - 1} rows`);
  const [pngDownload] = await Promise.all([page.waitForEvent("download"),
    page.click("#chart-roofline >> xpath=ancestor::figure//button[@data-export='png']")]);
  const png = readFileSync(await pngDownload.path());
  check(png.subarray(1, 4).toString() === "PNG" && png.length > 1000, `PNG export: ${png.length} bytes`);

  // roofline kernels survive a reload
  await page.fill("#roof-name", "kept kernel");
  await page.fill("#roof-flops", "3e11");
  await page.fill("#roof-dram", "1e9");
  await page.click("#roof-add");
  await page.waitForFunction(() => window.simtDashboard.kernels.length === 2, null, { timeout: 15000 });
  await page.reload({ waitUntil: "load" });
  await ready();
  const kept = await page.evaluate(() => window.simtDashboard.kernels.map((k) => k.name));
  check(kept.includes("kept kernel") && kept.length === 2, `roofline kernels kept across a reload (${kept.join("; ")})`);
  const regsAfter = await page.inputValue("#occ-regs");
  check(regsAfter === "40", "a reload keeps the edited input (from the URL)");
} catch (err) {
  fail(err);
  await page.screenshot({ path: join(shots, "phone-failure.png"), fullPage: true }).catch(() => {});
}
check(errors.length === 0, `no page errors${errors.length ? ": " + errors.join("; ") : ""}`);
await close();
done();

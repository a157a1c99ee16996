// dashboard_transformer.mjs SCREENSHOT_DIR - the dashboard's transformer
// section in headless Chromium: choosing llama3-8b on h200-sxm and h100-sxm
// (the page opens on other choices, from its URL) draws two lines of 9
// points (batch 1..256), whose tokens per second equal what POST
// /v1/transformer answers the test itself; the memory bar's "max batch"
// equals the answer's memory.max_batch; the choices land in the URL; both
// charts have a text alternative and export; FP8 weights on an A100 show the
// 422; no sideways scroll at 390 px. Saves transformer.png and
// transformer-390.png (look at them). Run through daemon.py (SIMT_URL).
import { mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBrowser, tally } from "./browser.mjs";

const url = process.env.SIMT_URL;
const shots = process.argv[2] || join(tmpdir(), "simt-dashboard-screenshots");
mkdirSync(shots, { recursive: true });
const { check, fail, done } = tally();
const { page, errors, close } = await openBrowser({ width: 1400, height: 1000 });

async function transformer(body) {
  const resp = await fetch(`${url}/v1/transformer`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  return { status: resp.status, data: await resp.json() };
}

// Waits for the section to redraw after `act`, and returns its datasets.
async function redraw(act) {
  const before = await page.evaluate(() => window.simtDashboard.updates.transformer);
  await act();
  await page.waitForFunction((n) => window.simtDashboard.updates.transformer > n, before, { timeout: 30000 });
  await page.waitForTimeout(300); // a debounced change may still be on its way
  return page.evaluate(() => window.simtDashboard.charts.transformer.data.datasets.map((d) => ({
    label: d.label, points: d.data.map((p) => ({ x: p.x, y: p.y })),
  })));
}

try {
  await page.goto(`${url}/?tf-model=mistral-7b&tfg=a100-sxm4-80gb&tf-len=2048`, { waitUntil: "load", timeout: 30000 });
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  const opened = await page.evaluate(() => window.simtDashboard.charts.transformer.data.datasets.map((d) => d.label));
  check(opened.join(",") === "a100-sxm4-80gb", `the URL's choice is drawn first (${opened.join(",")})`);

  // choose llama3-8b, decode at kv_len 4096, on h200-sxm and h100-sxm
  await redraw(() => page.selectOption("#tf-model", "llama3-8b"));
  await redraw(() => page.fill("#tf-len", "4096"));
  await redraw(() => page.uncheck("#tf-gpus input[value='a100-sxm4-80gb']"));
  await redraw(() => page.check("#tf-gpus input[value='h200-sxm']"));
  const sets = await redraw(() => page.check("#tf-gpus input[value='h100-sxm']"));
  const labels = sets.map((d) => d.label).sort();
  check(labels.join(",") === "h100-sxm,h200-sxm", `two lines, one per GPU (${labels.join(",")})`);
  check(sets.every((d) => d.points.length === 9), `9 points each (${sets.map((d) => d.points.length).join(",")})`);
  check(sets.every((d) => d.points.map((p) => p.x).join(",") === "1,2,4,8,16,32,64,128,256"), "at batch 1, 2, 4 ... 256");

  // the plotted tokens per second are the API's, asked here independently
  for (const [gpu, batch] of [["h200-sxm", 16], ["h100-sxm", 128]]) {
    const a = await transformer({ gpu, model: "llama3-8b", phase: "decode", batch, kv_len: 4096 });
    const plotted = sets.find((d) => d.label === gpu).points.find((p) => p.x === batch);
    check(a.status === 200 && plotted && plotted.y === a.data.tokens_per_s,
          `${gpu} batch ${batch}: plotted ${plotted && plotted.y} = POST /v1/transformer ${a.data.tokens_per_s}`);
  }
  const h200 = sets.find((d) => d.label === "h200-sxm").points;
  check(h200[8].y > h200[0].y, "decode tokens per second grow with batch");

  // the memory bar: the first checked GPU at the bar's batch, and its max batch
  const first = await page.$eval("#tf-gpus input:checked", (el) => el.value);
  const barBatch = Number(await page.inputValue("#tf-batch"));
  const mem = await transformer({ gpu: first, model: "llama3-8b", phase: "decode", batch: barBatch, kv_len: 4096 });
  const maxLabel = await page.textContent("#tf-maxbatch");
  check(mem.status === 200 && maxLabel === `max batch ${mem.data.memory.max_batch}`,
        `${first}: the bar's label "${maxLabel}" = memory.max_batch ${mem.data.memory.max_batch}`);
  const bar = await page.evaluate(() => {
    const c = window.simtDashboard.charts.tfmem;
    return { title: c.options.plugins.title.text, labels: c.data.labels, sets: c.data.datasets.map((d) => [d.label, d.data.map((p) => p.x)]) };
  });
  const gib = 1024 ** 3;
  const weights = bar.sets.find(([l]) => l === "weights");
  const kv = bar.sets.find(([l]) => l === "KV cache");
  check(bar.title.startsWith(first) && weights && Math.abs(weights[1][0] - mem.data.memory.weights_bytes / gib) < 1e-9 &&
        Math.abs(kv[1][0] - mem.data.memory.kv_cache_bytes / gib) < 1e-9, `the bar stacks the answer's weights and KV cache (${bar.title})`);
  check(bar.labels.join(",") === `batch ${barBatch},max batch ${mem.data.memory.max_batch}`,
        `a row at the chosen batch and one at the largest that fits (${bar.labels.join(", ")})`);

  // state in the URL, text alternatives, export
  const params = await page.evaluate(() => Object.fromEntries(new URLSearchParams(location.search)));
  check(params["tf-model"] === "llama3-8b" && params["tf-len"] === "4096" && params.tfg.split(",").sort().join(",") === "h100-sxm,h200-sxm",
        `the choices are in the URL (tf-model=${params["tf-model"]}, tfg=${params.tfg})`);
  for (const id of ["chart-transformer", "chart-tfmem"]) {
    const alt = await page.$eval(`#${id}`, (c) => ({
      label: c.getAttribute("aria-label") || "", rows: c.closest("figure").querySelectorAll("table.chart-data tr").length,
      exports: [...c.closest("figure").querySelectorAll("button[data-export]")].map((b) => b.dataset.export).join(","),
    }));
    check(alt.label.length > 40 && alt.rows > 2 && alt.exports === "csv,png",
          `${id}: aria-label, a data table of ${alt.rows - 1} rows, CSV and PNG export`);
  }
  const [csvDownload] = await Promise.all([page.waitForEvent("download"),
    page.click("#chart-transformer >> xpath=ancestor::figure//button[@data-export='csv']")]);
  const csv = readFileSync(await csvDownload.path(), "utf8").trim().split("\n");
  check(csv[0] === "series,batch,tokens per second" && csv.length === 19, `CSV export: ${csv.length - 1} rows`);
  await page.locator("#transformer").screenshot({ path: join(shots, "transformer.png") });

  // FP8 weights on an A100: the 422 is shown, the other lines stay
  await redraw(() => page.check("#tf-gpus input[value='a100-sxm4-80gb']"));
  const fp8 = await redraw(() => page.selectOption("#tf-weights", "fp8"));
  const err = await page.textContent("#tf-error");
  check(err.includes("a100-sxm4-80gb") && err.includes("422") && fp8.length === 2,
        `fp8 on a100: "${err.slice(0, 90)}", ${fp8.length} lines left`);
  await redraw(() => page.selectOption("#tf-weights", "bf16"));

  // a phone
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(500);
  const width = await page.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, inner: window.innerWidth }));
  check(width.scroll <= width.inner, `no horizontal scroll at 390 px (scrollWidth ${width.scroll})`);
  await page.locator("#transformer").screenshot({ path: join(shots, "transformer-390.png") });
} catch (err) {
  fail(err);
  await page.screenshot({ path: join(shots, "transformer-failure.png"), fullPage: true }).catch(() => {});
}
check(errors.length === 0, `no page errors${errors.length ? ": " + errors.join("; ") : ""}`);
await close();
done();

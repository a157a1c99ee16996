// dashboard_kernel.mjs SCREENSHOT_DIR - the dashboard's kernel section in
// headless Chromium: the URL's GPU and preset fill the request; choosing
// h200-sxm and the wmma preset gives the README's tensor-core request
// (read from README.md here); Predict shows the time POST /v1/kernel answers
// the test itself for the textarea's body, its bound, every breakdown term
// (tensor_s among them), the occupancy and the assumptions; a broken JSON
// body shows an error and the page goes on; a 422 shows the server's message
// and field; doubling tensor_fp16 once the kernel is compute-bound roughly
// doubles the time shown; the request survives a reload from the URL; no
// sideways scroll at 390 px. Saves kernel.png and kernel-390.png (look at
// them). Run through daemon.py (SIMT_URL).
import { mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openBrowser, tally } from "./browser.mjs";

const url = process.env.SIMT_URL;
const shots = process.argv[2] || join(tmpdir(), "simt-dashboard-screenshots");
mkdirSync(shots, { recursive: true });
const readme = readFileSync(fileURLToPath(new URL("../../../README.md", import.meta.url)), "utf8");
const { check, fail, done } = tally();
const { page, errors, close } = await openBrowser({ width: 1400, height: 1000 });

async function kernel(body) {
  const resp = await fetch(`${url}/v1/kernel`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  return { status: resp.status, data: await resp.json() };
}

// "13.3 µs" -> 1.33e-5
function parseSeconds(text) {
  const m = /^\s*([0-9.eE+-]+)\s*(s|ms|µs|ns)\s*$/.exec(text || "");
  return m ? Number(m[1]) * { s: 1, ms: 1e-3, "µs": 1e-6, ns: 1e-9 }[m[2]] : NaN;
}
const near = (shown, want) => Math.abs(shown - want) <= 0.006 * Math.abs(want); // 3 significant digits

// Presses Predict (the button, or Enter on it) and waits for the section to redraw.
async function predict(byKeyboard) {
  const before = await page.evaluate(() => window.simtDashboard.updates.kernel);
  if (byKeyboard) {
    await page.focus("#kern-predict");
    await page.keyboard.press("Enter");
  } else {
    await page.click("#kern-predict");
  }
  await page.waitForFunction((n) => window.simtDashboard.updates.kernel > n, before, { timeout: 30000 });
}
const textarea = async () => JSON.parse(await page.inputValue("#kern-body"));

try {
  await page.goto(`${url}/?kern-gpu=a100-sxm4-80gb&kern-preset=saxpy`, { waitUntil: "load", timeout: 30000 });
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  const opened = await textarea();
  check(opened.gpu === "a100-sxm4-80gb" && opened.per_thread.flops.fp32 === 2, `the URL's GPU and preset fill the request (${opened.gpu})`);

  // labels a keyboard user and a screen reader reach
  const labels = await page.evaluate(() => ["kern-gpu", "kern-preset", "kern-body", "kern-predict"].map((id) => {
    const el = document.getElementById(id);
    return el.labels && el.labels.length ? el.labels[0].textContent.trim().split(/\s+/)[0] : el.textContent.trim();
  }));
  check(labels.every((l) => l.length > 0), `every control has a label (${labels.join(" | ")})`);

  // h200-sxm, the wmma preset: the README's request, as written there
  await page.selectOption("#kern-gpu", "h200-sxm");
  check((await textarea()).gpu === "h200-sxm", "the GPU select rewrites the request's gpu");
  await page.selectOption("#kern-preset", "wmma");
  const line = readme.split("\n").find((l) => l.includes("/v1/kernel") && l.includes("tensor_fp16"));
  const readmeBody = JSON.parse(/--json '([^']*)'/.exec(line)[1]);
  const body = await textarea();
  check(JSON.stringify(body) === JSON.stringify(readmeBody), "the wmma preset is the README's tensor-core request");

  await predict(false);
  const answer = await kernel(body);
  const shown = await page.evaluate(() => ({
    time: document.getElementById("kern-time").textContent,
    bound: document.getElementById("kern-bound").textContent,
    occupancy: document.getElementById("kern-occupancy").textContent,
    terms: Object.fromEntries([...document.querySelectorAll("#kern-breakdown tr[data-term]")]
      .map((tr) => [tr.dataset.term, tr.querySelector("td").textContent])),
    assumptions: document.querySelectorAll("#kern-assumptions li").length,
    error: document.getElementById("kern-error").hidden,
    last: window.simtDashboard.last.kernel.data.time_s,
  }));
  check(answer.status === 200 && shown.last === answer.data.time_s && near(parseSeconds(shown.time), answer.data.time_s),
        `the time shown (${shown.time}) is POST /v1/kernel's ${answer.data.time_s}`);
  check(shown.bound === answer.data.bound, `bound shown: ${shown.bound} (answer: ${answer.data.bound})`);
  const terms = Object.keys(answer.data.breakdown);
  check(terms.length > 3 && terms.every((t) => t in shown.terms), `every breakdown term has a row (${Object.keys(shown.terms).join(", ")})`);
  check(answer.data.breakdown.tensor_s > 0 && near(parseSeconds(shown.terms.tensor_s), answer.data.breakdown.tensor_s),
        `tensor_s shown: ${shown.terms.tensor_s} (answer: ${answer.data.breakdown.tensor_s})`);
  check(shown.occupancy === `${Math.round(answer.data.occupancy.occupancy * 1000) / 10}%`, `occupancy shown: ${shown.occupancy}`);
  check(shown.assumptions === answer.data.assumptions.length && shown.assumptions > 0, `${shown.assumptions} assumptions listed`);
  check(shown.error, "no error shown");
  await page.locator("#kernel").screenshot({ path: join(shots, "kernel.png") });

  // a broken body: the page says so and goes on
  const good = await page.inputValue("#kern-body");
  await page.fill("#kern-body", good.slice(0, -2));
  await predict(true);
  const broken = await page.$eval("#kern-error", (el) => ({ hidden: el.hidden, text: el.textContent }));
  check(!broken.hidden && broken.text.includes("not JSON"), `a broken body: "${broken.text.slice(0, 80)}"`);

  // a 422: the server's message and field
  const fp8 = Object.assign({}, readmeBody, { gpu: "a100-sxm4-80gb", per_thread: Object.assign({}, readmeBody.per_thread, { flops: { tensor_fp8: 131072 } }) });
  const refused = await kernel(fp8);
  await page.fill("#kern-body", JSON.stringify(fp8));
  await predict(false);
  const err = await page.textContent("#kern-error");
  check(refused.status === 422 && err.includes("422") && err.includes(refused.data.error.message) && err.includes(refused.data.error.field),
        `tensor_fp8 on a100: "${err.slice(0, 120)}"`);

  // compute-bound: doubling tensor_fp16 roughly doubles the time
  const times = [];
  for (const flops of [4 * 131072, 8 * 131072]) {
    await page.fill("#kern-body", good.replace("\"tensor_fp16\": 131072", `"tensor_fp16": ${flops}`));
    await predict(false);
    const t = await page.evaluate(() => ({ time: document.getElementById("kern-time").textContent, bound: document.getElementById("kern-bound").textContent }));
    check(t.bound === "compute", `tensor_fp16 ${flops}: ${t.time}, bound ${t.bound}`);
    times.push(parseSeconds(t.time));
  }
  const ratio = times[1] / times[0];
  check(ratio > 1.8 && ratio < 2.05, `doubling tensor_fp16 multiplies the time by ${ratio.toFixed(3)}`);

  // the request lives in the URL: a reload brings it back
  const typed = await page.inputValue("#kern-body");
  const params = await page.evaluate(() => Object.fromEntries(new URLSearchParams(location.search)));
  check(params["kern-gpu"] === "h200-sxm" && params["kern-preset"] === "wmma" && params["kern-body"] !== undefined &&
        JSON.stringify(JSON.parse(params["kern-body"])) === JSON.stringify(JSON.parse(typed)), "GPU, preset and request are in the URL");
  await page.reload({ waitUntil: "load" });
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  check(await page.inputValue("#kern-body") === typed, "a reload restores the typed request");
  const again = await page.evaluate(() => window.simtDashboard.last.kernel.data);
  check(again.bound === "compute" && near(again.time_s, times[1]), "and predicts it on load");

  // a phone
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(500);
  const width = await page.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, inner: window.innerWidth }));
  check(width.scroll <= width.inner, `no horizontal scroll at 390 px (scrollWidth ${width.scroll})`);
  await page.locator("#kernel").screenshot({ path: join(shots, "kernel-390.png") });
} catch (err) {
  fail(err);
  await page.screenshot({ path: join(shots, "kernel-failure.png"), fullPage: true }).catch(() => {});
}
check(errors.length === 0, `no page errors${errors.length ? ": " + errors.join("; ") : ""}`);
await close();
done();

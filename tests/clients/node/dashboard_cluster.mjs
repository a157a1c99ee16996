// dashboard_cluster.mjs SCREENSHOT_DIR - the occupancy section's thread-block
// cluster inputs in headless Chromium: on h200-sxm, 256 threads x 64
// registers, a cluster size of 2 shows the active clusters per GPU that POST
// /v1/occupancy answers the test itself (and the answer's number is the one
// worked by hand from the H200's layout: 264); "4,4,1" without the
// non-portable box shows the 422 naming cluster_size, and with it the
// answer's count; the choices land in the URL and come back from it; an
// empty size removes the clusters; h100-sxm (no layout in the database)
// shows the 422 that says so. Saves cluster.png (look at it). Run through
// daemon.py (SIMT_URL).
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBrowser, tally } from "./browser.mjs";

const url = process.env.SIMT_URL;
const shots = process.argv[2] || join(tmpdir(), "simt-dashboard-screenshots");
mkdirSync(shots, { recursive: true });
const { check, fail, done } = tally();
const { page, errors, close } = await openBrowser({ width: 1400, height: 1000 });

async function occupancy(body) {
  const resp = await fetch(`${url}/v1/occupancy`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  return { status: resp.status, data: await resp.json() };
}

// Waits for the occupancy view to redraw after `act`.
async function redraw(act) {
  const before = await page.evaluate(() => window.simtDashboard.updates.occupancy);
  await act();
  await page.waitForFunction((n) => window.simtDashboard.updates.occupancy > n, before, { timeout: 30000 });
  await page.waitForTimeout(400); // a debounced change may still be on its way
}

const clustersShown = () => page.$eval("#occ-result", (el) => {
  const b = el.querySelector("#occ-clusters");
  return b ? b.textContent : null;
});

try {
  await page.goto(`${url}/?occ-gpu=h200-sxm&occ-block=256&occ-regs=64`, { waitUntil: "load", timeout: 30000 });
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  check(await clustersShown() === null, "no cluster line without a cluster size");

  await redraw(() => page.fill("#occ-cluster", "2"));
  const two = await occupancy({ gpu: "h200-sxm", block_size: 256, registers_per_thread: 64, cluster_size: 2 });
  const shownTwo = await clustersShown();
  // 4 blocks per SM, clusters of 2 over 18, 18, 16 x 5, 8, 2 x 4 SMs: 2 x 36 + 5 x 32 + 16 + 4 x 4
  check(two.status === 200 && two.data.active_clusters_per_gpu === 264 && shownTwo === "264",
        `size 2: shown ${shownTwo}, POST /v1/occupancy ${two.data.active_clusters_per_gpu}, by hand 264`);

  await redraw(() => page.fill("#occ-cluster", "4,4,1"));
  const err = await page.textContent("#occ-error");
  check(err.includes("422") && err.includes("cluster_size") && err.includes("non_portable_cluster_size"),
        `4x4x1 without the box: "${err.slice(0, 100)}"`);

  await redraw(() => page.check("#occ-nonportable"));
  const big = await occupancy({ gpu: "h200-sxm", block_size: 256, registers_per_thread: 64, cluster_size: [4, 4, 1],
                                non_portable_cluster_size: true });
  const shownBig = await clustersShown();
  check(big.status === 200 && shownBig === String(big.data.active_clusters_per_gpu) && big.data.active_clusters_per_gpu === 28,
        `4x4x1 non-portable: shown ${shownBig}, API ${big.data.active_clusters_per_gpu}, by hand 2 x 4 + 5 x 4 = 28`);
  check((await page.isHidden("#occ-error")), "the error is gone once the box is checked");
  await page.locator("#occupancy").screenshot({ path: join(shots, "cluster.png") });

  // the choices are in the URL, and a page opened from it shows the same
  const params = await page.evaluate(() => Object.fromEntries(new URLSearchParams(location.search)));
  check(params["occ-cluster"] === "4,4,1" && params["occ-nonportable"] === "1",
        `in the URL: occ-cluster=${params["occ-cluster"]}, occ-nonportable=${params["occ-nonportable"]}`);
  const again = await page.evaluate(() => location.href);
  await page.goto(again, { waitUntil: "load", timeout: 30000 });
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  await page.waitForFunction(() => window.simtDashboard.updates.occupancy > 0, null, { timeout: 30000 });
  await page.waitForTimeout(400);
  check(await clustersShown() === shownBig, `reopened from the URL: ${await clustersShown()}`);

  // no layout: the 422 says so
  await redraw(() => page.selectOption("#occ-gpu", "h100-sxm"));
  const noLayout = await page.textContent("#occ-error");
  check(noLayout.includes("no GPC layout for h100-sxm") && noLayout.includes("h200-sxm"), `h100-sxm: "${noLayout.slice(0, 110)}"`);

  // an empty size: plain occupancy again
  await redraw(() => page.fill("#occ-cluster", ""));
  check(await page.isHidden("#occ-error") && await clustersShown() === null, "an empty cluster size answers without clusters");
} catch (err) {
  fail(err);
  await page.screenshot({ path: join(shots, "cluster-failure.png"), fullPage: true }).catch(() => {});
}
check(errors.length === 0, `no page errors${errors.length ? ": " + errors.join("; ") : ""}`);
await close();
done();

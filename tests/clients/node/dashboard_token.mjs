// dashboard_token.mjs - the dashboard against a simtd started with
// --token-file (daemon.py --with-token; the token in SIMT_TEST_TOKEN): on
// the first 401 it asks for the token once (a prompt), sends it as
// "Authorization: Bearer" on every API call, keeps it in sessionStorage for
// the tab (a reload asks no more), and the views are drawn.
// The page's own files (/, /app.js, ...) are fetched here with the token
// added, since this simtd also guards them; API calls go untouched.
import { openBrowser, tally } from "./browser.mjs";

const url = process.env.SIMT_URL;
const token = process.env.SIMT_TEST_TOKEN;
const { check, fail, done } = tally();
if (!token) {
  console.error("SIMT_TEST_TOKEN is not set (run through daemon.py --with-token)");
  process.exit(2);
}
const { page, errors, close } = await openBrowser({ width: 1200, height: 900 });
const ASSETS = new Set(["/", "/app.js", "/share.js", "/style.css", "/static/chart.js"]);
await page.route((u) => ASSETS.has(new URL(u).pathname), async (route) => {
  const headers = Object.assign({}, route.request().headers(), { authorization: `Bearer ${token}` });
  await route.fulfill({ response: await route.fetch({ headers }) });
});
const prompts = [];
page.on("dialog", async (dialog) => {
  prompts.push(dialog.message());
  await dialog.accept(token);
});
const apiAuth = [];
page.on("request", (req) => {
  const path = new URL(req.url()).pathname;
  if (path.startsWith("/v1/")) apiAuth.push(req.headers().authorization || "");
});

try {
  await page.goto(url + "/", { waitUntil: "load", timeout: 30000 });
  await page.waitForSelector("body[data-ready='1']", { timeout: 30000 });
  check(prompts.length === 1 && prompts[0].includes("token"), `asked for the token once (${prompts.length} prompt)`);
  check((await page.textContent("#occ-value")) === "50%", "the calculator answers through the token");
  const stored = await page.evaluate(() => sessionStorage.getItem("simt.token"));
  check(stored === token, "the token is kept in sessionStorage");
  check(apiAuth.some((h) => h === `Bearer ${token}`), "API calls carry Authorization: Bearer");
  await page.reload({ waitUntil: "load" });
  await page.waitForSelector("body[data-ready='1']", { timeout: 30000 });
  check(prompts.length === 1, "after a reload the tab's token is used without asking");
  const last = apiAuth.slice(-5);
  check(last.every((h) => h === `Bearer ${token}`), "every later API call sends the token");
} catch (err) {
  fail(err);
}
check(errors.length === 0, `no page errors${errors.length ? ": " + errors.join("; ") : ""}`);
await close();
done();

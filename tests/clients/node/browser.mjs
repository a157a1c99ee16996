// browser.mjs - what the dashboard tests share: Debian's headless Chromium
// through playwright-core in a fresh profile, a check() tally, and the
// console errors seen. Exits 77 (skipped) when chromium is missing.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.SIMT_CHROMIUM || "/usr/bin/chromium";

export async function openBrowser(viewport) {
  if (!existsSync(CHROMIUM)) {
    console.log(`SKIPPED: ${CHROMIUM} not found (apt-get install chromium; .ci/deps installs it)`);
    process.exit(77);
  }
  if (!process.env.SIMT_URL) {
    console.error("SIMT_URL is not set (run through tests/clients/daemon.py)");
    process.exit(2);
  }
  const profile = mkdtempSync(join(tmpdir(), "simt-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport,
    acceptDownloads: true,
  });
  const page = context.pages()[0] || (await context.newPage());
  const errors = [];
  page.on("pageerror", (err) => errors.push(String(err)));
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, page, errors, close };
}

export function tally() {
  let failures = 0;
  let checks = 0;
  const check = (cond, what) => {
    checks++;
    if (!cond) failures++;
    console.log(`${cond ? "ok" : "FAIL"} - ${what}`);
  };
  const fail = (err) => {
    failures++;
    console.log(`FAIL - ${err.stack || err}`);
  };
  const done = () => {
    console.log(`${checks - failures} passed, ${failures} failed`);
    process.exit(failures ? 1 : 0);
  };
  return { check, fail, done };
}

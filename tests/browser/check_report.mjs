// Opens an HTML report of gpuwatch in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core from npm) and prints one JSON object on stdout: console messages, page errors,
// every network request other than the page itself, the time the charts took to render, and per
// chart its title and series with their point counts. Saves a full-page screenshot.
// Usage: node tests/browser/check_report.mjs REPORT.html SCREENSHOT.png [WIDTH]
// The assertions are made by the caller (tests/cli/test_html_report.py, bench/html_bench.py).
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [html, shot, widthArg] = process.argv.slice(2);
if (!html || !shot) {
  console.error("usage: node check_report.mjs REPORT.html SCREENSHOT.png [WIDTH]");
  process.exit(2);
}
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const profile = mkdtempSync(join(tmpdir(), "gw-chromium-"));
const result = { console: [], pageErrors: [], requests: [], charts: [] };
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: Number(widthArg || 1400), height: 900 },
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync"],
  });
  const page = context.pages()[0] || (await context.newPage());
  const url = pathToFileURL(resolve(html)).href;
  page.on("console", (m) => result.console.push({ type: m.type(), text: m.text() }));
  page.on("pageerror", (e) => result.pageErrors.push(String(e)));
  page.on("request", (r) => { if (r.url() !== url) result.requests.push(r.url()); });
  const t0 = Date.now();
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => document.body.getAttribute("data-ready") === "1",
                             null, { timeout: 20000 });
  result.wallMs = Date.now() - t0;
  Object.assign(result, await page.evaluate(() => {
    const r = window.gwReport;
    return {
      readyMs: r.readyMs,
      htmlBytes: document.documentElement.outerHTML.length,
      charts: r.charts.map((c) => ({
        id: c.id,
        title: c.title,
        binned: c.spec.binned,
        gridPoints: c.u.data[0].length,
        canvas: [c.u.ctx.canvas.width, c.u.ctx.canvas.height],
        series: c.u.series.slice(1).map((s, k) => ({
          label: s.label,
          show: s.show,
          points: c.u.data[k + 1].filter((v) => v != null).length,
          gaps: c.u.data[k + 1].filter((v) => v === null).length,
          min: Math.min(...c.u.data[k + 1].filter((v) => v != null)),
          max: Math.max(...c.u.data[k + 1].filter((v) => v != null)),
          atMin: c.u.data[k + 1].filter(
            (v) => v != null && v === Math.min(...c.u.data[k + 1].filter((w) => w != null))).length,
        })),
      })),
      legend: [...document.querySelectorAll(".u-legend .u-label")].length,
      tables: [...document.querySelectorAll("table")].map((t) => t.className),
    };
  }));
  await page.screenshot({ path: shot, fullPage: true });
} catch (e) {
  result.error = String(e && e.stack || e);
} finally {
  if (context) await context.close();
  rmSync(profile, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(result) + "\n");
process.exit(result.error ? 1 : 0);

import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "playwright-core";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";

/** Debian's Chromium (playwright's own browser downloads cannot work here). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

let gw: TestGateway;
let server: Server;
let origin: string;
let browser: Browser;
beforeAll(async () => {
  // Fails, never skips: CI installs Chromium (.ci/run), so a missing one is a broken machine.
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install it with 'apt-get install -y chromium' (.ci/run does), or set CHROMIUM_PATH`);
  gw = await startTestGateway(uniquePrefix("docs-page"));
  server = createServer(gw.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await gw?.close();
});

describe("GET /docs in a real browser", () => {
  it("when the page is opened, then it shows the endpoints, asks nothing of any other host and reports no error", async () => {
    const context = await browser.newContext();
    const requested: string[] = [];
    const offHost: string[] = [];
    // Every request the page makes passes here (scripts, styles, images, fetches, workers); others are refused.
    await context.route("**/*", async (route) => {
      const url = route.request().url();
      requested.push(url);
      if (new URL(url).origin === origin || url.startsWith("data:")) return route.continue();
      offHost.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(String(error)));

    const response = await page.goto(`${origin}/docs`);
    expect(response?.status()).toBe(200);
    const paths = page.locator(".opblock-summary-path");
    await paths.first().waitFor();
    // Swagger UI puts zero-width spaces in long paths so they may wrap.
    const shown = (await paths.allTextContents()).map((text) => text.replace(/\u200b/g, ""));
    expect(shown).toEqual(expect.arrayContaining(["/api/text/default", "/api/text/{model}", "/api/v2/status/{id}", "/api/status/{task_id}", "/api/audio/full", "/api/voices"]));
    await expect(page.title()).resolves.toBe("Chorus API reference");
    expect(requested).toContain(`${origin}/openapi.json`);
    expect(offHost).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

import type { Browser } from "playwright-core";
import { launchChromium, serveApp, watchedPage } from "../../../test-support/browser.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";

let gw: TestGateway;
let server: Awaited<ReturnType<typeof serveApp>>;
let browser: Browser;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("docs-page"));
  server = await serveApp(gw.app);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await gw?.close();
});

describe("GET /docs in a real browser", () => {
  it("when the page is opened, then it shows the endpoints, asks nothing of any other host and reports no error", async () => {
    const { context, page, requested, offHost, problems } = await watchedPage(browser, server.origin);
    const response = await page.goto(`${server.origin}/docs`);
    expect(response?.status()).toBe(200);
    const paths = page.locator(".opblock-summary-path");
    await paths.first().waitFor();
    // Swagger UI puts zero-width spaces in long paths so they may wrap.
    const shown = (await paths.allTextContents()).map((text) => text.replace(/\u200b/g, ""));
    expect(shown).toEqual(expect.arrayContaining(["/api/text/default", "/api/text/{model}", "/api/v2/status/{id}", "/api/status/{task_id}", "/api/audio/full", "/api/voices"]));
    await expect(page.title()).resolves.toBe("Chorus API reference");
    expect(requested).toContain(`${server.origin}/openapi.json`);
    expect(offHost).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

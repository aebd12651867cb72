import { startBrowserOnGateway, watchedPage, type BrowserOnGateway } from "../../../test-support/browser.js";

let on: BrowserOnGateway;
beforeAll(async () => {
  on = await startBrowserOnGateway("docs-page");
});
afterAll(() => on?.close());

describe("GET /docs in a real browser", () => {
  it("when the page is opened, then it shows the endpoints, asks nothing of any other host and reports no error", async () => {
    const { page, requested, offHost, problems, close } = await watchedPage(on);
    const response = await page.goto(`${on.origin}/docs`);
    expect(response?.status()).toBe(200);
    const paths = page.locator(".opblock-summary-path");
    await paths.first().waitFor();
    // Swagger UI puts zero-width spaces in long paths so they may wrap.
    const shown = (await paths.allTextContents()).map((text) => text.replace(/\u200b/g, ""));
    expect(shown).toEqual(
      expect.arrayContaining([
        "/api/text/default",
        "/api/text/{model}",
        "/api/v2/status/{id}",
        "/api/status/{task_id}",
        "/api/audio/full",
        "/api/voices",
      ]),
    );
    await expect(page.title()).resolves.toBe("Chorus API reference");
    expect(requested).toContain(`${on.origin}/openapi.json`);
    expect(offHost).toEqual([]);
    expect(problems).toEqual([]);
    await close();
  });
});

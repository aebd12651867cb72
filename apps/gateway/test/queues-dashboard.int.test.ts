import { startBrowserOnGateway, watchedPage, type BrowserOnGateway } from "../../../test-support/browser.js";

const ADMIN_TOKEN = "admin-token-for-the-dashboard-test-0123456789";

let on: BrowserOnGateway;
beforeAll(async () => {
  on = await startBrowserOnGateway("queues-board", { ADMIN_TOKEN });
});
afterAll(() => on?.close());

describe("GET /admin/queues in a real browser", () => {
  it("when an operator signs in with the admin token as the password, then the board shows both queues, asking nothing of any other host", async () => {
    const watched = await watchedPage(on, { httpCredentials: { username: "admin", password: ADMIN_TOKEN } });
    const response = await watched.page.goto(`${on.origin}/admin/queues`);
    expect(response?.status()).toBe(200);
    // Each queue in the menu and as a card of the overview, which the board fills from its own API.
    for (const queue of ["text-generation", "speech-synthesis"]) await watched.page.getByText(queue).nth(1).waitFor();
    await watched.page.waitForLoadState("networkidle");
    if (process.env.DASHBOARD_SCREENSHOT)
      await watched.page.screenshot({ path: process.env.DASHBOARD_SCREENSHOT, fullPage: true });
    expect(watched.offHost).toEqual([]);
    expect(watched.failed).toEqual([]);
    expect(watched.problems).toEqual([]);
    await watched.close();
  });
});

import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "playwright-core";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";

/** Debian's Chromium (playwright's own browser downloads cannot work here). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ADMIN_TOKEN = "admin-token-for-the-dashboard-test-0123456789";

let gw: TestGateway;
let server: Server;
let origin: string;
let browser: Browser;
beforeAll(async () => {
  // Fails, never skips: CI installs Chromium (.ci/run), so a missing one is a broken machine.
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install it with 'apt-get install -y chromium' (.ci/run does), or set CHROMIUM_PATH`);
  gw = await startTestGateway(uniquePrefix("queues-board"), { ADMIN_TOKEN });
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

describe("GET /admin/queues in a real browser", () => {
  it("when an operator signs in with the admin token as the password, then the board shows both queues, asking nothing of any other host", async () => {
    const context = await browser.newContext({ httpCredentials: { username: "admin", password: ADMIN_TOKEN } });
    const offHost: string[] = [];
    // Every request the page makes passes here (scripts, styles, fonts, fetches); others are refused.
    await context.route("**/*", async (route) => {
      const url = route.request().url();
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

    const failed: string[] = [];
    page.on("response", (res) => {
      if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
    });
    const response = await page.goto(`${origin}/admin/queues`);
    expect(response?.status()).toBe(200);
    // Each queue in the menu and as a card of the overview, which the board fills from its own API.
    for (const queue of ["text-generation", "speech-synthesis"]) await page.getByText(queue).nth(1).waitFor();
    await page.waitForLoadState("networkidle");
    if (process.env.DASHBOARD_SCREENSHOT) await page.screenshot({ path: process.env.DASHBOARD_SCREENSHOT, fullPage: true });
    expect(offHost).toEqual([]);
    expect(failed).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

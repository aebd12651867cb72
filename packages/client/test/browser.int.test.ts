import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { startLiveStack, type LiveStack } from "../../../test-support/live-stack.js";
import { uniquePrefix } from "../../../test-support/redis.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const DIST = fileURLToPath(new URL("../dist/", import.meta.url));

/**
 * Serves an empty page at / and the built SDK under /client/, on its own loopback port: the page's
 * origin is another than the gateway's, so the SDK's calls are cross-origin as a web app's are
 * (and loopback to loopback, which Chromium's Local Network Access allows without a prompt).
 */
async function startPageServer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://page").pathname;
    const file = `${DIST}${path.replace(/^\/client\//, "")}`;
    if (path === "/") res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>sdk</title>");
    else if (path.startsWith("/client/") && existsSync(file))
      res.writeHead(200, { "content-type": "text/javascript" }).end(readFileSync(file));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

interface PageResult {
  reply: string;
  status: string;
  updates: { status: string; partialReply?: string }[];
}

/** The built SDK (dist/index.js, as `npm run build` leaves it) imported by a page in a real Chromium. */
describeWithModel("@chorus/client in a browser", () => {
  let stack: LiveStack;
  let browser: Browser;
  let pages: { origin: string; server: Server };

  beforeAll(async () => {
    // Fails, never skips: CI installs Chromium (.ci/run).
    if (!existsSync(CHROMIUM))
      throw new Error(
        `no Chromium at ${CHROMIUM}: install it with 'apt-get install -y chromium', or set CHROMIUM_PATH`,
      );
    pages = await startPageServer();
    stack = await startLiveStack(uniquePrefix("client-browser"), { CORS_ORIGINS: pages.origin });
    browser = await chromium.launch({ executablePath: CHROMIUM });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await new Promise((resolve) => pages?.server.close(resolve));
  }, 60_000);

  it("when a page imports dist/index.js as an ES module, then generate streams the reply from the gateway", async () => {
    const key = await stack.gw.createKey();
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(String(error)));
    await page.goto(`${pages.origin}/`);
    const result = await page.evaluate(
      async ({ origin, baseUrl, apiKey }) => {
        const sdk = (await import(`${origin}/client/index.js`)) as typeof import("@chorus/client");
        const client = new sdk.ChorusClient({ baseUrl, apiKey });
        const updates: PageResult["updates"] = [];
        const body = {
          messages: [{ role: "You" as const, content: "Tell me a story about a brave cat.", index: 0 }],
          samplingParams: { max_tokens: 300 },
        };
        const record = await client.generate("default", body, { onUpdate: (update) => updates.push(update) });
        return { reply: record.reply, status: record.status, updates };
      },
      { origin: pages.origin, baseUrl: stack.baseUrl, apiKey: key },
    );
    expect(result.status).toBe("completed");
    expect(result.reply).not.toBe("");
    expect(result.updates.at(-1)?.status).toBe("completed");
    expect(result.updates.some((update) => update.partialReply && result.reply.startsWith(update.partialReply))).toBe(
      true,
    );
    expect(problems).toEqual([]);
    await context.close();
  });
});

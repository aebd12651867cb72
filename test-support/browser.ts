import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type BrowserContextOptions, type Page } from "playwright-core";
import { startTestGateway, type TestGateway } from "./gateway.js";
import { uniquePrefix } from "./redis.js";

/** Debian's Chromium (playwright's own browser downloads cannot work here). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export interface BrowserOnGateway {
  gw: TestGateway;
  /** `http://127.0.0.1:<port>` of the gateway, listening for real. */
  origin: string;
  browser: Browser;
  close(): Promise<void>;
}

/** A test gateway on a real port and Chromium to open its pages. Fails, never skips, without Chromium. */
export async function startBrowserOnGateway(
  label: string,
  env: Record<string, string> = {},
  chromiumArgs: string[] = [],
): Promise<BrowserOnGateway> {
  // CI installs Chromium (.ci/run), so a missing one is a broken machine.
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM}: install it with 'apt-get install -y chromium' (.ci/run does), or set CHROMIUM_PATH`,
    );
  const gw = await startTestGateway(uniquePrefix(label), env);
  const server: Server = createServer(gw.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: chromiumArgs });
  return {
    gw,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    browser,
    close: async () => {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
      await gw.close();
    },
  };
}

export interface WatchedPage {
  page: Page;
  /** Every URL the page asked for. */
  requested: string[];
  /** Those of another origin, refused. */
  offHost: string[];
  /** Console errors and uncaught page errors. */
  problems: string[];
  /** Answers of 400 and above, as `<status> <url>`. */
  failed: string[];
  close: () => Promise<void>;
}

/**
 * A page whose every request passes a check (scripts, styles, fonts, fetches, workers): another origin's is refused and
 * noted.
 */
export async function watchedPage(on: BrowserOnGateway, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const context = await on.browser.newContext(options);
  const watched = {
    requested: [] as string[],
    offHost: [] as string[],
    problems: [] as string[],
    failed: [] as string[],
  };
  await context.route("**/*", async (route) => {
    const url = route.request().url();
    watched.requested.push(url);
    if (new URL(url).origin === on.origin || url.startsWith("data:")) return route.continue();
    watched.offHost.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") watched.problems.push(message.text());
  });
  page.on("pageerror", (error) => watched.problems.push(String(error)));
  page.on("response", (res) => {
    if (res.status() >= 400) watched.failed.push(`${res.status()} ${res.url()}`);
  });
  return { page, ...watched, close: () => context.close() };
}

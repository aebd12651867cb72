import { existsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

/** Debian's Chromium (playwright's own browser downloads cannot work here). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** A headless Chromium; fails, never skips: CI installs Chromium (.ci/run), so a missing one is a broken machine. */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install it with 'apt-get install -y chromium' (.ci/run does), or set CHROMIUM_PATH`);
  return chromium.launch({ executablePath: CHROMIUM, args });
}

/** `app` listening on a free loopback port, for a browser to open. */
export async function serveApp(app: Express): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Every URL the page asked for (scripts, styles, images, fetches, workers). */
  requested: string[];
  /** Those off `origin`: refused, and listed here for the test to assert on. */
  offHost: string[];
  /** Console errors and uncaught exceptions. */
  problems: string[];
}

/** A page in a fresh context whose every request passes here: `origin` and data: URLs go through, others are refused. */
export async function watchedPage(browser: Browser, origin: string): Promise<WatchedPage> {
  const context = await browser.newContext();
  const watched = { context, requested: [] as string[], offHost: [] as string[], problems: [] as string[] };
  await context.route("**/*", async (route) => {
    const url = route.request().url();
    watched.requested.push(url);
    if (new URL(url).origin === origin || url.startsWith("data:")) return route.continue();
    watched.offHost.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") watched.problems.push(message.text());
  });
  page.on("pageerror", (error) => watched.problems.push(String(error)));
  return { ...watched, page };
}

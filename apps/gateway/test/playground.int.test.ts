import type { Page } from "playwright-core";
import request from "supertest";
import {
  startBrowserOnGateway,
  watchedPage,
  type BrowserOnGateway,
  type WatchedPage,
} from "../../../test-support/browser.js";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { holdingEngine } from "../../../test-support/holding-engine.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { waitFor } from "../../../test-support/wait-for.js";
import {
  EspeakSpeechEngine,
  type LlmEngine,
  loadFixtureEngine,
  startTestWorker,
  type TestWorker,
} from "../../../test-support/worker.js";

/**
 * What the tests read in the browser (their type-check has no DOM library: the evaluated functions run in the page).
 */
interface MediaElement {
  ended: boolean;
  currentTime: number;
  duration: number;
  error: unknown;
}
interface BrowserStorage {
  sessionStorage: { getItem(key: string): string | null };
  localStorage: { length: number };
}

/** Set to a folder (docs/images) to save the screenshots the README shows. */
const SCREENSHOTS = process.env.PLAYGROUND_SCREENSHOTS;

describeWithModel("the playground (GET /) in a real browser, on the real gateway and worker", () => {
  let on: BrowserOnGateway;
  let llm: LlmEngine;
  let held: ReturnType<typeof holdingEngine>;
  let speech: EspeakSpeechEngine;
  let worker: TestWorker;
  let key: string;
  let watched: WatchedPage;
  let page: Page;
  beforeAll(async () => {
    // Speak is clicked, a user gesture, but the audio comes after a round trip that may outlast it.
    on = await startBrowserOnGateway("playground", {}, ["--autoplay-policy=no-user-gesture-required"]);
    llm = await loadFixtureEngine();
    speech = new EspeakSpeechEngine({ concurrency: 1 });
    held = holdingEngine(llm);
    worker = await startTestWorker(on.gw.prefix, held.engine, {
      speech: { speech, concurrency: 1, audioTtlSeconds: 60 },
    });
    key = await on.gw.createKey({ limits: { status: 10_000, tts: 1000 } });
  }, 120_000);
  afterAll(async () => {
    await worker?.close();
    await speech?.close();
    await llm?.close();
    await on?.close();
  }, 60_000);

  beforeEach(async () => {
    watched = await watchedPage(on);
    page = watched.page;
    expect((await page.goto(`${on.origin}/`))?.status()).toBe(200);
  });
  afterEach(async () => {
    // Whatever a test did, the page asked nothing of another host, and every file of its own was there
    // (API answers of 400 and above are what some tests are about).
    expect(watched.offHost).toEqual([]);
    expect(watched.failed.filter((failure) => !new URL(failure.split(" ")[1]!).pathname.startsWith("/api/"))).toEqual(
      [],
    );
    await watched.close();
  });

  const reply = () => page.getByTestId("reply").last();
  async function say(text: string) {
    await page.getByTestId("message").fill(text);
    await page.getByTestId("send").click();
  }
  async function openChat(model: string, apiKey = key) {
    await page.getByTestId("api-key").fill(apiKey);
    await page.getByTestId("api-key").press("Tab");
    await page.getByTestId("model").selectOption(model);
  }

  it("when a message is sent to a character, then the reply fills in, its progress reaches the end, and the key stays in session storage", async () => {
    await openChat("Witch");
    await expect(page.locator("#model-description").textContent()).resolves.toMatch(/^Morwenna is a hedge witch/);
    await expect(page.locator("#bot-name").inputValue()).resolves.toBe("Morwenna");
    await say("Hello! What are you brewing?");
    await reply().and(page.locator("[data-state=completed]")).waitFor();

    await expect(reply().locator(".reply-text").textContent()).resolves.toMatch(/\S/);
    await expect(reply().getByTestId("progress").getAttribute("value")).resolves.toBe("1");
    await expect(reply().locator(".who").textContent()).resolves.toBe("Morwenna");
    await expect(reply().getByTestId("stop").isHidden()).resolves.toBe(true);
    await expect(reply().getByTestId("speak").isVisible()).resolves.toBe(true);
    // The key's usage today, as the worker metered this reply: once its job has ended (the record turns final a
    // round trip before its metering), the key is given again, as a user would, and the page reads it.
    await waitFor("the reply's job ended", async () => (await on.gw.deps.queues[0]!.getJobs(["completed"])).length > 0);
    await page.getByTestId("api-key").dispatchEvent("change");
    await page
      .getByTestId("usage-today")
      .filter({ hasText: "1 request (1 completed, 0 failed, 0 cancelled)" })
      .waitFor();
    // The API calls went through the SDK's browser build, served from packages/client/dist.
    expect(watched.requested).toContain(`${on.origin}/playground/client/index.js`);
    await expect(
      page.evaluate(() => {
        const { sessionStorage, localStorage } = globalThis as unknown as BrowserStorage;
        return [sessionStorage.getItem("chorus.apiKey"), localStorage.length];
      }),
    ).resolves.toEqual([key, 0]);
    expect(watched.problems).toEqual([]);
  });

  it("when Stop is pressed on a long generation, then the reply, filled in so far, says it was cancelled", async () => {
    held.hold(true);
    try {
      await openChat("default");
      await page.locator("#max-tokens").fill("2048");
      await page.locator("#temperature").fill("1.5");
      await say("Tell me a very long story about a brave cat.");
      // The text arrives token by token: some of it is there while the reply is still being written.
      await reply()
        .and(page.locator("[data-state=processing]"))
        .locator(".reply-text")
        .filter({ hasText: /[\s\S]{20}/ })
        .waitFor();
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/playground-chat.png` });
      await reply().getByTestId("stop").click();
      await reply().and(page.locator("[data-state=cancelled]")).waitFor();
      await expect(reply().locator(".reply-meta").textContent()).resolves.toBe("Cancelled");
      expect(watched.problems).toEqual([]);
    } finally {
      held.hold(false);
    }
  });

  it("when Speak is pressed on a reply, then the audio element plays it in the character's voice", async () => {
    await openChat("Mage");
    await say("Good evening, master.");
    await reply().and(page.locator("[data-state=completed]")).waitFor();
    await expect(page.locator("#voice").inputValue()).resolves.toBe("Mage");
    await page.locator("#format").selectOption("wav");
    await reply().getByTestId("speak").click();
    const audio = await page.getByTestId("audio").elementHandle();
    await page.waitForFunction((element: MediaElement) => element.currentTime > 0 || element.ended, audio);
    await expect(audio.evaluate((element: MediaElement) => [element.error, element.duration > 0])).resolves.toEqual([
      null,
      true,
    ]);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/playground-speech.png`, fullPage: true });
    expect(watched.problems).toEqual([]);
  });

  it("when the key is not valid, then the API's error message is shown and the message stays to send again", async () => {
    await openChat("Lightning", "not-a-real-key");
    // From the keyboard: Enter in the message box sends.
    await page.getByTestId("message").fill("Hi!");
    await page.getByTestId("message").press("Enter");
    const alert = page.getByRole("alert");
    await alert.filter({ hasText: "the API key is not valid" }).waitFor();
    await expect(page.getByTestId("message").inputValue()).resolves.toBe("Hi!");
    await expect(page.getByTestId("reply").count()).resolves.toBe(0);
  });
});

describe("the playground's files", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("playground-files"));
  });
  afterAll(() => gw.close());

  it("when asked without an API key, then the page, its modules, the SDK's browser build and the characters' data come from the gateway under a same-origin CSP", async () => {
    const page = await request(gw.app).get("/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    const script = await request(gw.app).get("/playground/main.js");
    expect(script.status).toBe(200);
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    const sdk = await request(gw.app).get("/playground/client/index.js");
    expect(sdk.status).toBe(200);
    expect(sdk.text).toContain("ChorusClient");
    const witch = await request(gw.app).get("/playground/characters/witch.json");
    expect(witch.status).toBe(200);
    expect(witch.body).toMatchObject({ model: "Witch", botName: "Morwenna" });
  });
});

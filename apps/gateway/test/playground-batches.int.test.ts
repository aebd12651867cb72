import { readFile } from "node:fs/promises";
import type { Locator, Page } from "playwright-core";
import {
  startBrowserOnGateway,
  watchedPage,
  type BrowserOnGateway,
  type WatchedPage,
} from "../../../test-support/browser.js";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { holdingEngine } from "../../../test-support/holding-engine.js";
import { type LlmEngine, loadFixtureEngine, startTestWorker, type TestWorker } from "../../../test-support/worker.js";

/** Set to a folder (docs/images) to save the screenshot docs/playground.md shows. */
const SCREENSHOTS = process.env.PLAYGROUND_SCREENSHOTS;
/** A batch runs its lines one job each on the fixture model: far longer than Playwright's 30 s on a loaded machine. */
const BATCH_END = { timeout: 150_000 };

/** One line of a batch's output file, the fields the test reads. */
interface OutputLine {
  custom_id: string;
  response: { status_code: number; body: { choices: { message: { content: string } }[] } } | null;
  error: { code: string; message: string } | null;
}

/** The lines of the file a click on `button` downloads. */
async function downloadLines(page: Page, button: Locator): Promise<{ filename: string; lines: OutputLine[] }> {
  const [download] = await Promise.all([page.waitForEvent("download"), button.click()]);
  const text = await readFile(await download.path(), "utf8");
  const lines = text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as OutputLine);
  return { filename: download.suggestedFilename(), lines };
}

describeWithModel("the playground's Batches view in a real browser, on the real gateway and worker", () => {
  let on: BrowserOnGateway;
  let llm: LlmEngine;
  let held: ReturnType<typeof holdingEngine>;
  let worker: TestWorker;
  let key: string;
  let watched: WatchedPage;
  let page: Page;
  beforeAll(async () => {
    on = await startBrowserOnGateway("playground-batches");
    llm = await loadFixtureEngine();
    held = holdingEngine(llm);
    worker = await startTestWorker(on.gw.prefix, held.engine);
  }, 120_000);
  afterAll(async () => {
    await worker?.close();
    await llm?.close();
    await on?.close();
  }, 60_000);

  beforeEach(async () => {
    // A key of its own: each test sees only its own batches; two in progress at a time.
    key = await on.gw.createKey({ limits: { status: 10_000, batches: 2 } });
    watched = await watchedPage(on);
    page = watched.page;
    expect((await page.goto(`${on.origin}/`))?.status()).toBe(200);
    await page.getByTestId("api-key").fill(key);
    await page.getByTestId("api-key").press("Tab");
  });
  afterEach(async () => {
    // The page asked nothing of another host, every file of its own was there (API refusals are what a test is
    // about), and the key was never put in a URL.
    expect(watched.offHost).toEqual([]);
    expect(watched.failed.filter((failure) => !new URL(failure.split(" ")[1]!).pathname.startsWith("/v1/"))).toEqual(
      [],
    );
    expect(watched.requested.filter((url) => url.includes(key))).toEqual([]);
    await watched.close();
  });

  /** The Batches tab, chosen from the keyboard as the tabs pattern has it: the arrow key from Chat. */
  async function openBatches() {
    await page.getByRole("tab", { name: "Chat" }).focus();
    await page.keyboard.press("ArrowRight");
    await expect(page.getByRole("tab", { name: "Batches" }).getAttribute("aria-selected")).resolves.toBe("true");
    await expect(page.locator("#batches-view").isVisible()).resolves.toBe(true);
    await expect(page.locator("#chat-view").isVisible()).resolves.toBe(false);
  }

  it("when a sample batch is run in the page, then it reaches completed with its counts and its output downloads with a generated reply for every line", async () => {
    await page.getByTestId("model").selectOption("Witch");
    await page.locator("#max-tokens").fill("16");
    await openBatches();
    await page.getByTestId("batch-sample").click();
    const sample = (await page.getByTestId("batch-lines").inputValue())
      .split("\n")
      .map(
        (line) => JSON.parse(line) as { custom_id: string; url: string; body: { model: string; max_tokens: number } },
      );
    expect(sample.length).toBeGreaterThan(1);
    for (const line of sample)
      expect(line).toMatchObject({ url: "/v1/chat/completions", body: { model: "Witch", max_tokens: 16 } });

    await page.getByTestId("batch-submit").click();
    const batch = page.getByTestId("batch").first();
    await batch.and(page.locator("[data-status=completed]")).waitFor(BATCH_END);
    const total = sample.length;
    await expect(batch.getByTestId("batch-counts").textContent()).resolves.toBe(
      `${total} of ${total} done (${total} completed, 0 failed)`,
    );
    await expect(batch.getByTestId("batch-progress").getAttribute("value")).resolves.toBe(String(total));
    await expect(batch.getByTestId("batch-cancel").isHidden()).resolves.toBe(true);
    await expect(batch.getByTestId("batch-errors").isHidden()).resolves.toBe(true);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/playground-batches.png`, fullPage: true });

    const { filename, lines: output } = await downloadLines(page, batch.getByTestId("batch-output"));
    expect(filename).toMatch(/^batch_.+-output\.jsonl$/);
    expect(output.map((line) => line.custom_id).sort()).toEqual(sample.map((line) => line.custom_id).sort());
    for (const line of output) {
      expect(line.response?.status_code).toBe(200);
      // Generated by the fixture model: whatever it says, it says something.
      expect(line.response?.body.choices[0]?.message.content).toMatch(/\S/);
    }
    expect(watched.problems).toEqual([]);
  });

  it("when a file with bad lines is chosen, then the refusal lists every bad line and no batch is listed", async () => {
    await openBatches();
    const body = { model: "default", messages: [{ role: "user", content: "Hi" }] };
    const good = { custom_id: "ok", method: "POST", url: "/v1/chat/completions", body };
    // Line 2 is not JSON, line 3 has no custom_id.
    const lines = [JSON.stringify(good), "{ not json", JSON.stringify({ ...good, custom_id: undefined })];
    await page.getByTestId("batch-file").setInputFiles({
      name: "bad.jsonl",
      mimeType: "application/jsonl",
      buffer: Buffer.from(`${lines.join("\n")}\n`),
    });
    await page.getByTestId("batch-submit").click();
    const alert = page.getByRole("alert").filter({ hasText: "HTTP 400" });
    await alert.waitFor();
    const listed = await alert.locator("li").allTextContents();
    expect([...new Set(listed.map((item) => /^Line (\d+)/.exec(item)?.[1]))]).toEqual(["2", "3"]);
    await expect(page.getByTestId("batch").count()).resolves.toBe(0);
  });

  it("when a third batch is run while the key's two allowed are in progress, then the 429 says when to retry; Cancel ends both, each error file naming every line", async () => {
    // Generations finish only when cancelled: the batches stay in progress until the clicks.
    held.hold(true);
    try {
      await openBatches();
      await page.getByTestId("batch-sample").click();
      const customIds = (await page.getByTestId("batch-lines").inputValue())
        .split("\n")
        .map((line) => (JSON.parse(line) as { custom_id: string }).custom_id);
      const batches = page.getByTestId("batch");
      const inProgress = batches.and(page.locator("[data-status=in_progress]"));
      for (const count of [1, 2]) {
        await page.getByTestId("batch-submit").click();
        await batches.nth(count - 1).waitFor();
        await inProgress.nth(count - 1).waitFor(BATCH_END);
      }
      await page.getByTestId("batch-submit").click();
      await page
        .getByRole("alert")
        .filter({ hasText: /^HTTP 429: this API key already has 2 batches in progress.*Try again in 60 s\.$/ })
        .waitFor();
      await expect(batches.count()).resolves.toBe(2);

      // The newest from the keyboard (the button focused, Enter presses it), then the other with a click: the page
      // follows two active batches, then one.
      await batches.first().getByTestId("batch-cancel").focus();
      await page.keyboard.press("Enter");
      await batches.last().getByTestId("batch-cancel").click();
      for (const batch of [batches.first(), batches.last()]) {
        await batch.and(page.locator("[data-status=cancelled]")).waitFor(BATCH_END);
        await expect(batch.getByTestId("batch-cancel").isHidden()).resolves.toBe(true);
        await expect(batch.getByTestId("batch-output").isHidden()).resolves.toBe(true);
        const { filename, lines } = await downloadLines(page, batch.getByTestId("batch-errors"));
        expect(filename).toMatch(/^batch_.+-errors\.jsonl$/);
        expect(lines.map((line) => line.custom_id).sort()).toEqual([...customIds].sort());
      }
      // The browser notes the refused request in the console; nothing else went wrong.
      expect(watched.problems).toEqual([
        "Failed to load resource: the server responded with a status of 429 (Too Many Requests)",
      ]);
    } finally {
      held.hold(false);
    }
  });
});

// Runs a few prompts as one OpenAI batch with the official `openai` client: uploads them as a JSON Lines file, creates
// the batch, follows its progress on stderr, then prints each reply as `custom_id: reply` on stdout.
// Usage: CHORUS_URL=http://127.0.0.1:3000 CHORUS_API_KEY=ck_... node dist/batch.js "First prompt" "Second prompt"
import OpenAI, { toFile } from "openai";
import type { Batch } from "openai/resources/batches";

const baseUrl = process.env.CHORUS_URL ?? "http://127.0.0.1:3000";
const apiKey = process.env.CHORUS_API_KEY;
if (!apiKey) {
  console.error("set CHORUS_API_KEY (create one with `npm run keys -- create --name demo`)");
  process.exit(2);
}
const model = process.env.CHORUS_MODEL ?? "default";
const prompts = process.argv.length > 2 ? process.argv.slice(2) : ["Name three colours.", "Say hello in French."];
/** How often the batch is read again: it runs on the capacity live requests leave free, so it may take a while. */
const POLL_MS = 1000;
const FINAL: Batch["status"][] = ["completed", "failed", "expired", "cancelled"];

const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey });

/** One request a line, as the Batch API reads them: `custom_id` is how each answer is found again. */
const jsonl = prompts
  .map((content, index) =>
    JSON.stringify({
      custom_id: `prompt-${index + 1}`,
      method: "POST",
      url: "/v1/chat/completions",
      body: { model, messages: [{ role: "user", content }], max_tokens: 60 },
    }),
  )
  .join("\n");

interface OutputLine {
  custom_id: string;
  response: {
    status_code: number;
    body: { choices?: { message: { content: string | null } }[]; error?: { message: string } };
  } | null;
  error: { code: string; message: string } | null;
}

/** The lines of a batch's output or error file (none when the batch has no such file). */
async function readLines(fileId: string | null): Promise<OutputLine[]> {
  if (!fileId) return [];
  const text = await (await openai.files.content(fileId)).text();
  return text
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as OutputLine);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  const file = await openai.files.create({ file: await toFile(Buffer.from(jsonl), "prompts.jsonl"), purpose: "batch" });
  let batch = await openai.batches.create({
    input_file_id: file.id,
    endpoint: "/v1/chat/completions",
    completion_window: "24h",
  });
  console.error(`batch ${batch.id}: ${prompts.length} requests`);
  // Ctrl-C cancels the batch on the server: lines not yet run are reported cancelled in its error file.
  process.once("SIGINT", () => void openai.batches.cancel(batch.id).then(() => console.error("cancelling…")));
  while (!FINAL.includes(batch.status)) {
    await sleep(POLL_MS);
    batch = await openai.batches.retrieve(batch.id);
    const { completed = 0, failed = 0, total = 0 } = batch.request_counts ?? {};
    console.error(`${batch.status}: ${completed} completed, ${failed} failed of ${total}`);
  }
  for (const line of await readLines(batch.output_file_id ?? null))
    console.log(`${line.custom_id}: ${line.response?.body.choices?.[0]?.message.content ?? ""}`);
  const failures = await readLines(batch.error_file_id ?? null);
  for (const line of failures)
    console.error(`${line.custom_id} failed: ${line.error?.message ?? line.response?.body.error?.message}`);
  for (const error of batch.errors?.data ?? []) console.error(`line ${error.line ?? "?"}: ${error.message}`);
  if (batch.status !== "completed" || failures.length > 0) process.exitCode = 1;
} catch (error) {
  // A refusal (a bad line, a spent budget, 429) is an APIError: its status and OpenAI's error message.
  if (error instanceof OpenAI.APIError) console.error(`HTTP ${error.status}: ${error.message}`);
  else console.error(error);
  process.exitCode = 1;
}

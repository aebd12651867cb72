import { execFile, execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ChorusClient } from "@chorus/client";
import OpenAI from "openai";
import { describeWithModel } from "../../test-support/fixtures.js";
import { startLiveStack, type LiveStack } from "../../test-support/live-stack.js";
import { uniquePrefix } from "../../test-support/redis.js";

const run = promisify(execFile);
const examples = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

/** Whether `python3` can import requests: the Python example needs it, and CI installs it (.ci/run). */
function pythonRequestsProblem(): string | null {
  try {
    execFileSync("python3", ["-c", "import requests"], { stdio: "pipe" });
    return null;
  } catch (error) {
    return `python3 cannot import requests (install it: python3 -m pip install requests, or apt-get install python3-requests): ${String(error)}`;
  }
}

/** Whether `jq` runs: the curl example reads JSON with it, and CI installs it (.ci/run). */
function jqProblem(): string | null {
  try {
    execFileSync("jq", ["--version"], { stdio: "pipe" });
    return null;
  } catch (error) {
    return `jq does not run (install it: apt-get install jq): ${String(error)}`;
  }
}

/** The commands each example is run with (the TypeScript one as `npm run build` compiled it). */
const EXAMPLES: [string, string, string[]][] = [
  ["typescript", process.execPath, [examples("typescript/dist/generate.js")]],
  ["python", "python3", [examples("python/generate.py")]],
  ["curl", "bash", [examples("curl/generate.sh")]],
];

/** Each example in examples/, run as a user would against a live gateway and worker: it must print the reply. */
describeWithModel("the examples against a live gateway and worker", () => {
  let stack: LiveStack;
  let baseUrl: string;
  const failedJobs: string[] = [];

  beforeAll(async () => {
    stack = await startLiveStack(uniquePrefix("examples"));
    baseUrl = stack.baseUrl;
    stack.worker.workers[0]?.on("failed", (job, error) => failedJobs.push(`${String(job?.id)}: ${error.message}`));
  }, 120_000);
  afterAll(() => stack.close(), 60_000);

  it("when the machine runs the Python example, then python3 has requests", () => {
    expect(pythonRequestsProblem()).toBeNull();
  });

  it("when the machine runs the curl example, then jq runs", () => {
    expect(jqProblem()).toBeNull();
  });

  it.each(EXAMPLES)(
    "when the %s example runs, then it prints the reply of the one request it made",
    async (_name, command, args) => {
      const apiKey = await stack.gw.createKey();
      const { stdout, stderr } = await run(command, [...args, "Tell me a story about a brave cat."], {
        env: { ...process.env, CHORUS_URL: baseUrl, CHORUS_API_KEY: apiKey },
        timeout: 90_000,
      });
      const { data } = await new ChorusClient({ baseUrl, apiKey }).requests();
      expect(data).toHaveLength(1);
      expect(data[0]?.status).toBe("completed");
      expect(data[0]?.reply).not.toBe("");
      expect(stdout).toBe(`${data[0]?.reply}\n`);
      expect(stderr).toContain(String(data[0]?.id));
      expect(failedJobs).toEqual([]);
    },
    120_000,
  );

  it("when the batch example runs, then it prints the reply of every prompt of the one batch it made, as custom_id: reply", async () => {
    const apiKey = await stack.gw.createKey();
    const prompts = ["Name three colours.", "Say hello in French.", "Count to three."];
    const { stdout, stderr } = await run(process.execPath, [examples("typescript/dist/batch.js"), ...prompts], {
      env: { ...process.env, CHORUS_URL: baseUrl, CHORUS_API_KEY: apiKey },
      timeout: 150_000,
    });
    const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey });
    const { data } = await openai.batches.list();
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ status: "completed", request_counts: { total: 3, completed: 3, failed: 0 } });
    expect(stderr).toContain(`batch ${data[0]?.id}: 3 requests`);
    // The replies printed are those of the batch's output file, one for each prompt, each generated text (the
    // fixture model's own, whatever it says).
    const output = (await (await openai.files.content(data[0]!.output_file_id!)).text()).trim().split("\n");
    const replies = output.map((line) => {
      const { custom_id, response } = JSON.parse(line) as {
        custom_id: string;
        response: { body: { choices: { message: { content: string } }[] } };
      };
      return [custom_id, response.body.choices[0]!.message.content] as const;
    });
    expect(replies.map(([customId]) => customId).sort()).toEqual(["prompt-1", "prompt-2", "prompt-3"]);
    for (const [, reply] of replies) expect(reply).toMatch(/\S/);
    expect(stdout).toBe(replies.map(([customId, reply]) => `${customId}: ${reply}\n`).join(""));
    expect(failedJobs).toEqual([]);
  }, 180_000);
});

// Generates a reply with the TypeScript SDK: the reply grows on stderr as it streams, the final reply goes to stdout.
// Usage: CHORUS_URL=http://127.0.0.1:3000 CHORUS_API_KEY=ck_... node dist/generate.js "Tell me a story"
import { ChorusClient, ChorusError } from "@chorus/client";

const baseUrl = process.env.CHORUS_URL ?? "http://127.0.0.1:3000";
const apiKey = process.env.CHORUS_API_KEY;
if (!apiKey) {
  console.error("set CHORUS_API_KEY (create one with `npm run keys -- create --name demo`)");
  process.exit(2);
}

const client = new ChorusClient({ baseUrl, apiKey });
const prompt = process.argv[2] ?? "Tell me a short story about a brave cat.";
// Ctrl-C stops waiting and cancels the request on the server (generate's cancelOnAbort default).
const controller = new AbortController();
process.once("SIGINT", () => controller.abort(new Error("interrupted")));

try {
  const result = await client.generate(
    "default",
    { messages: [{ role: "You", content: prompt, index: 0 }], samplingParams: { max_tokens: 120 } },
    {
      signal: controller.signal,
      onUpdate: (record) => {
        if (record.queuePosition !== undefined) console.error(`queued: ${record.queuePosition} ahead`);
        else if (record.partialReply) console.error(`… ${record.partialReply}`);
      },
    },
  );
  console.error(`done: ${result.tokens} tokens in ${result.processingTime ?? "?"} s (request ${result.id})`);
  console.log(result.reply);
} catch (error) {
  // REQUEST_FAILED: the request ran and ended in error; any other code: the API refused a call.
  if (error instanceof ChorusError)
    console.error(`${error.code}${error.status ? ` (HTTP ${error.status})` : ""}: ${error.message}`);
  else console.error(error);
  process.exitCode = 1;
}

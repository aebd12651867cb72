import { parseArgs } from "node:util";
import {
  ApiError,
  CAPPED_HOLDINGS,
  DEFAULT_PRIORITY_TIER,
  isKnownScope,
  isPriorityTier,
  KNOWN_SCOPES,
  LIMITED_OPERATIONS,
  PRIORITY_TIERS,
  USAGE_BUDGETS,
  type KeyLimits,
  type KeyUpdate,
  type PriorityTier,
} from "@chorus/contracts";
import { ApiKeyError, ApiKeyStore } from "@chorus/platform/api-keys";
import { parseCommandLine } from "@chorus/platform/process";
import { redisKeys } from "@chorus/platform/redis";
import { UsageReader } from "@chorus/platform/usage";
import { runOnRedis } from "./command-redis.js";
import { listLines, parseExpiry, rotateKey } from "./keys-lifecycle.js";
import { keyUsage } from "./keys-usage.js";
import { parseWebhookHosts, rotateWebhookSecret, UsageError } from "./keys-webhooks.js";

const USAGE = `usage: npm run keys -- COMMAND
  create --name NAME [--scopes LIST] [--limits text=N,tts=N,status=N,inflight=N,streams=N,webhooks=N,
           tokens_day=N,tokens_month=N,audio_seconds_day=N,audio_seconds_month=N]
         [--webhook-hosts LIST] [--expires WHEN] [--priority high|normal|low] [--rotate] [--json]
          prints the new key on stdout, and its webhook signing secret (whsec_…) on
          stderr: both are shown this once (--json: both on stdout, as JSON);
          --rotate revokes a key holding NAME first (revoked names are free again);
          text, tts, status: requests per minute; inflight: text requests waiting or
          running; streams: open status streams and waits; webhooks: webhook deliveries
          queued and not yet ended; tokens_day, tokens_month: tokens (prompt + completion)
          per UTC day, month; audio_seconds_day, audio_seconds_month: seconds of speech
          per UTC day, month; --webhook-hosts: the only hosts its webhooks may name;
          --expires 30d (s, m, h, d from now) or an ISO date-time: the key stops working then;
          --priority: its text requests' weight in the queue's turns (default normal;
          high: twice a normal key's share of starts while both wait, low: half)
  update ID [--scopes LIST] [--limits text=N,...] [--webhook-hosts LIST] [--expires WHEN|never]
         [--priority high|normal|low]
          changes a key in place (its secret, id and usage stay): --scopes replaces its
          scopes; each --limits entry sets that limit, NAME=default drops the key's own
          (the deployment's applies); --webhook-hosts a.example.com,*.b.example.com
          replaces its webhook hosts ('*': any host, '': none); gateways apply it
          within KEY_CACHE_TTL_MS; --expires sets its expiry, never drops it;
          --priority sets its tier
  rotate ID [--overlap DURATION]
          a new secret for the key, printed on stdout (shown this once); its id, scopes,
          limits, usage and webhook secret stay; with --overlap (90s, 30m, 1h, 2d) the old
          secret still works that long (only the newest old secret: rotating again ends
          an earlier overlap), without it the old secret stops at once
  rotate-webhook-secret ID [--overlap DURATION]
          a new webhook signing secret for the key, printed on stdout (shown this once);
          with --overlap (90s, 30m, 1h, 2d) the one it replaces still signs beside it
          that long: deliveries carry both signatures while receivers move over
  usage ID [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--by day|model] [--json]
          what the key's finished requests used (completed, error, cancelled; tokens,
          speech characters and seconds), by UTC day (default) or by model; default
          range: the 30 days ending today (UTC), at most 400 days
  list    every key, with column headers (LAST USED: to the minute)
  revoke ID | revoke --name NAME
          ID only ever matches an id; a name is revoked only with --name;
          a key already revoked (by id, or the last key that held NAME) is said so, exit 0
exit codes: 0 done, 2 a usage error or no such key, 1 Redis could not be used
scopes: ${KNOWN_SCOPES.join(", ")} (default *)
Redis: REDIS_URL, REDIS_SENTINELS + REDIS_SENTINEL_MASTER or REDIS_CLUSTER_NODES (and REDIS_PREFIX), else the private Redis of a running npm start, else 127.0.0.1:6379`;

const KEY_LIMITS = [...LIMITED_OPERATIONS, ...CAPPED_HOLDINGS, ...USAGE_BUDGETS];

/** `text=N,...`; where `reset` is allowed, `text=default` names a limit to drop (null). */
function parseLimitEntries(value: string | undefined, reset: boolean): KeyUpdate["limits"] & object {
  const limits: KeyUpdate["limits"] & object = {};
  for (const pair of value ? value.split(",") : []) {
    const [name, raw] = pair.split("=");
    const operation = KEY_LIMITS.find((op) => op === name?.trim());
    const number = Number(raw);
    if (operation && reset && raw?.trim() === "default") limits[operation] = null;
    else if (operation && Number.isInteger(number) && number >= 1) limits[operation] = number;
    else
      throw new UsageError(
        `bad --limits entry '${pair}'; expected ${KEY_LIMITS.map((op) => `${op}=N`).join(", ")} with N >= 1` +
          (reset ? " (or NAME=default)" : ""),
      );
  }
  return limits;
}

const parseLimits = (value: string | undefined): KeyLimits => parseLimitEntries(value, false) as KeyLimits;

function parsePriority(value: string): PriorityTier {
  if (isPriorityTier(value)) return value;
  throw new UsageError(`bad --priority '${value}'; expected ${PRIORITY_TIERS.join(", ")}`);
}

function parseScopes(value: string | undefined): string[] {
  const scopes = (value ?? "*")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !isKnownScope(s));
  if (unknown.length > 0 || scopes.length === 0)
    throw new UsageError(`unknown scope(s): ${unknown.join(", ") || "(none given)"}`);
  return scopes;
}

/** An id that matches no key may have been meant as a name: say how a name is revoked. */
function withNameHint(error: unknown): never {
  if (error instanceof ApiKeyError) throw new ApiKeyError(`${error.message} (to revoke by name: revoke --name NAME)`);
  throw error;
}

type CommandLine = ReturnType<typeof parseCommand>;

function parseCommand(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      scopes: { type: "string" },
      limits: { type: "string" },
      rotate: { type: "boolean" },
      json: { type: "boolean" },
      "webhook-hosts": { type: "string" },
      overlap: { type: "string" },
      expires: { type: "string" },
      priority: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      by: { type: "string" },
    },
  });
}

async function run(store: ApiKeyStore, usage: UsageReader, { values, positionals }: CommandLine): Promise<void> {
  const [command, target] = positionals;
  if (command === "create") {
    await create(store, values);
  } else if (command === "update" && target !== undefined) {
    await update(store, target, values);
  } else if (command === "rotate" && target !== undefined) {
    await rotateKey(store, target, values.overlap);
  } else if (command === "rotate-webhook-secret" && target !== undefined) {
    await rotateWebhookSecret(store, target, values.overlap);
  } else if (command === "usage" && target !== undefined) {
    await keyUsage(store, usage, target, values);
  } else if (command === "list") {
    process.stdout.write(listLines(await store.list())); // read before printing: a failure leaves no half a table
  } else if (command === "revoke" && (target === undefined) !== (values.name === undefined)) {
    // Never both ways at once: a key may be named like another key's id.
    await (target !== undefined ? revokeById(store, target) : revokeByName(store, values.name as string));
  } else {
    throw new UsageError(`${whatWasWrong(command, target)}\n\n${USAGE}`);
  }
}

function whatWasWrong(command: string | undefined, target: string | undefined): string {
  if (command === undefined) return "no command given";
  if (command === "update" || command === "rotate" || command === "rotate-webhook-secret" || command === "usage")
    return `${command} needs an ID`;
  if (command === "revoke")
    return target === undefined ? "revoke needs an ID or --name NAME" : "revoke takes an ID or --name NAME, not both";
  return `unknown command '${command}'`;
}

/** Scripts read the key from stdout, as before keys had a webhook secret: that goes to stderr (--json: both). */
async function create(store: ApiKeyStore, values: CommandLine["values"]): Promise<void> {
  if (!values.name) throw new UsageError("create needs --name NAME");
  const hosts = values["webhook-hosts"] === undefined ? null : parseWebhookHosts(values["webhook-hosts"]);
  const expiresAt = values.expires === undefined ? null : parseExpiry(values.expires, false);
  const { record, secret, webhookSecret } = await store.create(
    values.name,
    parseScopes(values.scopes),
    parseLimits(values.limits),
    {
      replace: values.rotate === true,
      priority: parsePriority(values.priority ?? DEFAULT_PRIORITY_TIER),
      ...(hosts && { webhookHosts: hosts }),
      ...(expiresAt && { expiresAt }),
    },
  );
  if (values.json)
    return void process.stdout.write(`${JSON.stringify({ id: record.id, key: secret, webhookSecret })}\n`);
  process.stdout.write(`${secret}\n`);
  process.stderr.write(`webhook signing secret of ${record.id} (shown this once): ${webhookSecret}\n`);
}

async function update(store: ApiKeyStore, id: string, values: CommandLine["values"]): Promise<void> {
  const change: KeyUpdate = {};
  if (values.scopes !== undefined) change.scopes = parseScopes(values.scopes);
  if (values.limits !== undefined) change.limits = parseLimitEntries(values.limits, true);
  if (values["webhook-hosts"] !== undefined) change.webhookHosts = parseWebhookHosts(values["webhook-hosts"]);
  if (values.expires !== undefined) change.expiresAt = parseExpiry(values.expires, true);
  if (values.priority !== undefined) change.priority = parsePriority(values.priority);
  if (Object.keys(change).length === 0)
    throw new UsageError(`update needs --scopes, --limits, --webhook-hosts, --expires or --priority\n\n${USAGE}`);
  const record = await store.update(id, change);
  const hosts = record.webhookHosts === null ? "any" : record.webhookHosts.join(",") || "none";
  process.stderr.write(
    `updated ${record.id} (${record.name}): scopes ${record.scopes.join(",")}, limits ${JSON.stringify(record.limits)}, webhook hosts ${hosts}, expires ${record.expiresAt ?? "never"}, priority ${record.priority}\n`,
  );
}

/** Revoking twice changes nothing and is not an error: said as such, by id and by name alike. */
async function revokeById(store: ApiKeyStore, id: string): Promise<void> {
  const existing = await store.get(id);
  if (existing?.revoked) return void process.stderr.write(`${existing.id} (${existing.name}) was already revoked\n`);
  const record = await store.revokeById(id).catch(withNameHint);
  process.stderr.write(`revoked ${record.id} (${record.name})\n`);
}

async function revokeByName(store: ApiKeyStore, name: string): Promise<void> {
  const record = await store.revokeByName(name).catch(async (error: unknown) => {
    const newest = (await store.list()).filter((k) => k.name === name).at(-1); // list() is oldest first
    if (!(error instanceof ApiKeyError) || !newest?.revoked) throw error;
    process.stderr.write(`${newest.id} (${name}) was already revoked; no active key holds that name\n`);
    return null;
  });
  if (record) process.stderr.write(`revoked ${record.id} (${record.name})\n`);
}

const commandLine = parseCommandLine(USAGE, parseCommand);
// ApiError: the key store refused the input (the same bounds as the admin API's).
await runOnRedis(
  "keys",
  (redis, prefix) =>
    run(new ApiKeyStore(redis, redisKeys(prefix)), new UsageReader(redis, redisKeys(prefix)), commandLine),
  (error) => error instanceof UsageError || error instanceof ApiKeyError || error instanceof ApiError,
);

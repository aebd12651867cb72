import { ApiKeyStore, CachedApiKeys } from "@chorus/platform/api-keys";
import { createLogger } from "@chorus/platform/logger";
import { createMetrics } from "@chorus/platform/metrics";
import { createGatewayRedis, redisKeys, waitUntilReady } from "@chorus/platform/redis";
import { StatusStore, type StoredStatus } from "@chorus/platform/scheduler";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { rateLimit } from "express-rate-limit";
import { RedisStore } from "rate-limit-redis";
import {
  authenticate,
  authenticatedKey,
  createRateLimiters,
  LimitPolicy,
  requestContext,
  sendJson,
} from "@chorus/gateway/middleware";
import { baselineEnv, serveBaseline } from "./baseline-process.js";
import { countInReadRoute } from "./count-in-read.js";
import { setLimitHeaders } from "./limit-headers.js";
import { STATUS_STEPS, type StatusStep } from "./status-steps.js";

/**
 * The gateway's status poll built up from its own parts, one step per process (STATUS_STEP), so the
 * bench can show what each part costs against the minimal HGETALL handler. Limits are set far above
 * any load, as on the bench's key: every limiter still counts every poll.
 */
const env = baselineEnv();
const step = process.env.STATUS_STEP as StatusStep;
if (!STATUS_STEPS.includes(step)) throw new Error(`STATUS_STEP must be one of ${STATUS_STEPS.join(", ")}`);
const at = (from: StatusStep) => STATUS_STEPS.indexOf(step) >= STATUS_STEPS.indexOf(from);

const redis = createGatewayRedis(env.redisUrl);
redis.on("error", () => undefined);
// The limiters load their scripts as they are built; the gateway survives a Redis that is not up yet,
// a bench step need not.
await waitUntilReady(redis, 5000);
const keys = redisKeys(env.prefix);
const statuses = new StatusStore(redis, keys, 3600);
const logger = createLogger({ level: "info", format: "json", service: "status-steps" });
const metrics = createMetrics("gateway", {});
const windowMs = 60_000;
const limit = 1_000_000_000;
// Counters of their own, apart from the gateway's (which shares this prefix).
const limiters = createRateLimiters({
  redis,
  keys: redisKeys(`${env.prefix}:${step}`),
  logger,
  limits: new LimitPolicy({
    text: limit,
    tts: limit,
    status: limit,
    inflight: limit,
    streams: limit,
    webhooks: limit,
    batches: limit,
  }),
  windowMs,
  authFailureLimit: 10,
  metrics,
});

/** Step `limit-script`: rate-limit-redis' counting script sent as one more command, without express-rate-limit. */
async function scriptOnly(): Promise<RequestHandler> {
  const store = new RedisStore({
    prefix: keys.rateLimit(`steps-${step}`),
    sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as never,
  });
  await store.init({ windowMs } as never); // loads the counting script: a step that cannot count fails at start
  return (req: Request, res: Response, next: NextFunction) => {
    store.increment(authenticatedKey(req).id).then(({ totalHits, resetTime }) => {
      setLimitHeaders(res, limit, totalHits, resetTime?.getTime() ?? Date.now());
      next();
    }, next);
  };
}

/** The limiter of each step (none before `limit-memory`). */
async function statusLimiter(): Promise<RequestHandler[]> {
  if (step === "limit-memory")
    return [
      rateLimit({
        windowMs,
        limit,
        keyGenerator: (req) => authenticatedKey(req).id,
        legacyHeaders: true,
        standardHeaders: false,
        validate: false,
      }),
    ];
  if (step === "limit-script") return [await scriptOnly()];
  if (step === "gateway-limiter") return [limiters.status];
  return [];
}

const READ = Symbol("read");
type StepRequest = Request & { [READ]?: Promise<StoredStatus | null> };

const app = express();
app.disable("x-powered-by");
app.set("etag", false);
app.get("/healthz", (_req, res) => {
  res.json({ status: "ok" });
});
if (at("context")) app.use(requestContext(logger, metrics));
const guards = at("auth")
  ? [authenticate(new CachedApiKeys(new ApiKeyStore(redis, keys), 5000), limiters.authFailure)]
  : [];
// As in the gateway, the record is asked for before the limiter runs, so both commands leave together.
const startRead = (req: Request, _res: Response, next: NextFunction) => {
  const read = statuses.get(String(req.params.id));
  read.catch(() => undefined); // awaited by the route, unless a limiter fails first
  (req as StepRequest)[READ] = read;
  next();
};
async function answerRead(req: Request, res: Response): Promise<void> {
  const stored = await (req as StepRequest)[READ];
  if (!stored || (at("auth") && stored.owner !== authenticatedKey(req).id))
    return sendJson(res, 404, { status: "error" });
  res.setHeader("Cache-Control", "no-store");
  sendJson(res, 200, stored.record);
}
if (step === "count-in-read")
  app.get("/api/v2/status/:id", ...guards, countInReadRoute(redis, keys, statuses, windowMs, limit));
else app.get("/api/v2/status/:id", ...guards, startRead, ...(await statusLimiter()), answerRead);

serveBaseline(app, env.port, () => redis.disconnect());

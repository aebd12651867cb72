import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import { ApiError } from "@chorus/contracts";
import type { Queue } from "bullmq";
import type { Express, IRouter, NextFunction, Request, RequestHandler, Response } from "express";

export const QUEUES_DASHBOARD_PATH = "/admin/queues";

/** Everything the page loads comes from this gateway; the browser refuses anything else. */
const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** bull-board's page template links a web font from Google's CDN; the page is served without it (system fonts). */
const EXTERNAL_STYLESHEET = /<link[^>]+href="https?:\/\/[^"]*"[^>]*>/g;

type RenderFile = (path: string, options: object, done: (error: Error | null, html?: string) => void) => void;

function withoutExternalStylesheets(board: Express): void {
  // bull-board registers its EJS engine on its own app; Express's types do not show `engines`.
  const engines = (board as unknown as { engines: Record<string, RenderFile> }).engines;
  const render = engines[".ejs"];
  if (!render) throw new Error("bull-board's page engine is not registered where expected");
  board.engine("ejs", (path, options, done) =>
    render(path, options, (error, html) => done(error, html?.replace(EXTERNAL_STYLESHEET, ""))),
  );
}

function dashboardHeaders(req: Request, res: Response, next: NextFunction): void {
  // Read-only twice over: the queues are registered read-only, and nothing but reads gets through.
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("Allow", "GET, HEAD");
    return next(new ApiError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on the read-only queues dashboard`));
  }
  res.setHeader("Content-Security-Policy", DASHBOARD_CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Cache-Control", "no-store");
  next();
}

/**
 * bull-board at /admin/queues, read-only: a job is tied to its status record, its place in the
 * queue-position set and the lost-job sweep, so removing or retrying one by hand would leave
 * those behind. Behind `authenticate` (the admin token, as a Bearer or a Basic password).
 */
export function mountQueuesDashboard(router: IRouter, queues: Queue[], authenticate: RequestHandler): void {
  const adapter = new ExpressAdapter().setBasePath(QUEUES_DASHBOARD_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: "Chorus queues" } },
  });
  const board = adapter.getRouter() as Express;
  withoutExternalStylesheets(board);
  router.use(QUEUES_DASHBOARD_PATH, authenticate, dashboardHeaders, board);
}

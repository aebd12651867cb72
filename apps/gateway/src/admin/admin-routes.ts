import type { Queue } from "bullmq";
import type { IRouter, RequestHandler } from "express";
import { authenticateAdmin } from "./admin-auth.js";
import { addAdminKeyRoutes, type AdminKeysDeps } from "./admin-keys.route.js";
import { addAdminUsageRoute, type AdminUsageDeps } from "./admin-usage.route.js";
import { addAdminWebhookRoutes, type AdminWebhooksDeps } from "./admin-webhooks.route.js";
import { mountQueuesDashboard } from "./queues-dashboard.js";

export interface AdminDeps extends AdminKeysDeps, AdminWebhooksDeps, AdminUsageDeps {
  /** ADMIN_TOKEN; unset, no admin route exists. */
  adminToken: string | undefined;
  /** Every BullMQ queue of the deployment, for the dashboard. */
  queues: Queue[];
}

/** The operators' routes under /admin, when ADMIN_TOKEN is set. `onAuthFailure`: the failed-authentication limiter. */
export function addAdminRoutes(router: IRouter, deps: AdminDeps, onAuthFailure: RequestHandler): void {
  if (!deps.adminToken) return;
  addAdminKeyRoutes(router, deps, authenticateAdmin(deps.adminToken, onAuthFailure));
  addAdminWebhookRoutes(router, deps, authenticateAdmin(deps.adminToken, onAuthFailure));
  addAdminUsageRoute(router, deps, authenticateAdmin(deps.adminToken, onAuthFailure));
  mountQueuesDashboard(router, deps.queues, authenticateAdmin(deps.adminToken, onAuthFailure, { basic: true }));
}

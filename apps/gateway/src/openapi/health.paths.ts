import { json, type Paths } from "./operation.js";
import { schemaRef } from "./schemas.js";

const probe = (summary: string, description: string) => ({ tags: ["Health"], summary, description, security: [] });

/** The unauthenticated probes (for load balancers and orchestrators). */
export function healthPaths(): Paths {
  return {
    "/healthz": {
      get: {
        operationId: "health",
        ...probe("Liveness", "The process serves HTTP. Needs no API key."),
        responses: {
          "200": {
            description: "Alive.",
            content: json({ type: "object", properties: { status: { const: "ok" } } }, { ok: { status: "ok" } }),
          },
        },
      },
    },
    "/readyz": {
      get: {
        operationId: "ready",
        ...probe("Readiness", "Redis answers on every connection the gateway holds. Needs no API key."),
        responses: {
          "200": {
            description: "Ready.",
            content: json(schemaRef("Readiness"), { ready: { status: "ready", redis: "ready" } }),
          },
          "503": {
            description: "Not ready.",
            content: json(schemaRef("Readiness"), { unavailable: { status: "unavailable", redis: "reconnecting" } }),
          },
        },
      },
    },
  };
}

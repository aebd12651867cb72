import {
  characterModelRequestSchema,
  chatCompletionRequestSchema,
  defaultModelRequestSchema,
  ERROR_CODES,
  newApiKeySchema,
  openAiSpeechSchema,
  speechRequestSchema,
  webhookSecretRotationSchema,
} from "@chorus/contracts";
import { compileErrors, dereference, validate } from "@readme/openapi-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { OpenAPIObject, OperationObject, SchemaObject } from "openapi3-ts/oas31";
import request from "supertest";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { buildOpenApiDocument } from "../src/openapi/openapi-document.js";
import { METRICS_PATH } from "../src/routes/metrics.route.js";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Registered routes the document leaves out on purpose, each with its reason. */
const UNDOCUMENTED: Record<string, string> = {
  "GET /openapi.json": "the document itself",
  "GET /docs": "the reference page (HTML for people)",
  "GET /docs/initializer.js": "the reference page's script",
  "GET /": "the playground (HTML for people; its files are static, not routes)",
};
// Not routes of the app, so not listed: the reference page's assets and bull-board's queues dashboard
// (/admin/queues, its page and its own JSON API, for people) are mounted as sub-apps (app.use).
let gw: TestGateway;
let served: OpenAPIObject;
beforeAll(async () => {
  // With the admin token, so the admin routes the document describes are registered.
  gw = await startTestGateway(uniquePrefix("openapi"), { ADMIN_TOKEN: "admin-token-for-the-openapi-test-0123" });
  served = (await request(gw.app).get("/openapi.json")).body as OpenAPIObject;
});
afterAll(() => gw.close());

/** `/api/status/{task_id}` and `/api/status/:id` both become `/api/status/{}`: parameter names do not route. */
const shape = (path: string) => path.replace(/\{[^}]+\}|:\w+/g, "{}");

interface RouteLayer {
  route?: { path: string | RegExp; methods: Record<string, boolean> };
}

function registeredRoutes(): string[] {
  const layers = (gw.app as unknown as { router: { stack: RouteLayer[] } }).router.stack;
  return layers.flatMap(({ route }) => {
    if (!route) return [];
    // /metrics, the only RegExp route: Prometheus' text, for operators (deploy/nginx hides it from the public).
    if (route.path instanceof RegExp) return route.path === METRICS_PATH ? [] : [`? ${String(route.path)}`];
    const path = route.path;
    return Object.keys(route.methods).map((method) => `${method.toUpperCase()} ${shape(path)}`);
  });
}

function documentedRoutes(document: OpenAPIObject): string[] {
  const methods = ["get", "put", "post", "delete", "patch", "head", "options"] as const;
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    methods.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${shape(path)}`),
  );
}

function operations(document: OpenAPIObject): [string, OperationObject][] {
  return Object.values(document.paths ?? {}).flatMap((item) =>
    ["get", "post", "patch", "delete"].flatMap((m) =>
      item[m as "get"] ? [[m, item[m as "get"] as OperationObject] as [string, OperationObject]] : [],
    ),
  );
}

describe("GET /openapi.json", () => {
  it("when asked without an API key, then it answers the document as JSON, outside any rate limit", async () => {
    const res = await request(gw.app).get("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.headers["x-ratelimit-limit"]).toBeUndefined();
    expect(res.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it("when validated by an OpenAPI validator, then it is a valid OpenAPI 3.1 document", async () => {
    expect(served.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(served) as never);
    expect(result.valid ? "valid" : compileErrors(result)).toBe("valid");
    expect(result.warnings).toEqual([]);
  });

  it("when a request body is documented, then its schema is the very object the gateway's validator is compiled from", () => {
    const built = buildOpenApiDocument().components?.schemas ?? {};
    const enforced = {
      DefaultModelGenerationRequest: defaultModelRequestSchema,
      CharacterModelGenerationRequest: characterModelRequestSchema,
      SpeechRequest: speechRequestSchema,
      NewApiKeyRequest: newApiKeySchema,
      WebhookSecretRotation: webhookSecretRotationSchema,
      ChatCompletionRequest: chatCompletionRequestSchema,
      OpenAiSpeechRequest: openAiSpeechSchema,
    };
    for (const [name, schema] of Object.entries(enforced)) {
      expect(built[name]).toBe(schema);
      expect(served.components?.schemas?.[name]).toEqual(JSON.parse(JSON.stringify(schema)));
    }
    const bodyRef = (path: string) =>
      (served.paths?.[path]?.post?.requestBody as { content: Record<string, { schema: { $ref: string } }> }).content[
        "application/json"
      ]?.schema.$ref;
    expect(bodyRef("/api/text/default")).toBe("#/components/schemas/DefaultModelGenerationRequest");
    expect(bodyRef("/api/text/{model}")).toBe("#/components/schemas/CharacterModelGenerationRequest");
    expect(bodyRef("/api/audio/full")).toBe("#/components/schemas/SpeechRequest");
    expect(bodyRef("/api/tts")).toBe("#/components/schemas/SpeechRequest");
    expect(bodyRef("/admin/keys")).toBe("#/components/schemas/NewApiKeyRequest");
    expect(bodyRef("/admin/keys/{id}/webhook-secret")).toBe("#/components/schemas/WebhookSecretRotation");
    expect(bodyRef("/v1/chat/completions")).toBe("#/components/schemas/ChatCompletionRequest");
    expect(bodyRef("/v1/audio/speech")).toBe("#/components/schemas/OpenAiSpeechRequest");
    expect(bodyRef("/v1/completions")).toBe("#/components/schemas/TextCompletionRequest");
  });

  it("when the app registers a route, then the document has it (but for those left out with a reason)", () => {
    const documented = new Set(documentedRoutes(served));
    const missing = registeredRoutes().filter((route) => !documented.has(route) && !(route in UNDOCUMENTED));
    expect(missing).toEqual([]);
  });

  it("when the document has a route, then the app registers it", () => {
    // A route's parameter matches any segment: /api/text/{} serves the documented /api/text/default.
    const registered = registeredRoutes().map(
      (route) => new RegExp(`^${route.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\}/g, "[^/]+")}$`),
    );
    const extra = documentedRoutes(served).filter((route) => !registered.some((pattern) => pattern.test(route)));
    expect(extra).toEqual([]);
  });

  it("when an API operation is documented, then it needs the bearer key, only the probes are open, and /admin takes the admin token", () => {
    expect(served.components?.securitySchemes?.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(served.components?.securitySchemes?.adminToken).toMatchObject({ type: "http", scheme: "bearer" });
    expect(served.security).toEqual([{ bearerAuth: [] }]);
    const own = (security: unknown) =>
      operations(served).flatMap(([, op]) =>
        JSON.stringify(op.security) === JSON.stringify(security) ? [op.operationId] : [],
      );
    expect(own([]).sort()).toEqual(["health", "ready"]);
    const adminOperations = Object.entries(served.paths ?? {})
      .filter(([path]) => path.startsWith("/admin/"))
      .flatMap(([, item]) => Object.values(item as Record<string, OperationObject>).map((op) => op.operationId));
    expect(own([{ adminToken: [] }]).sort()).toEqual(adminOperations.sort());
    expect(adminOperations).toHaveLength(9);
    expect(operations(served).filter(([, op]) => op.security !== undefined)).toHaveLength(2 + adminOperations.length);
  });

  it("when the error answers are documented, then every error code of the contract has an example in the envelope", () => {
    const examples = Object.values(served.components?.responses ?? {}).flatMap((response) =>
      Object.values(
        (response as { content: Record<string, { examples: Record<string, { value: { error: { code: string } } }> }> })
          .content["application/json"]?.examples ?? {},
      ),
    );
    expect(examples.map((example) => example.value.error.code).sort()).toEqual(Object.keys(ERROR_CODES).sort());
    expect(served.components?.schemas?.ErrorEnvelope).toBeDefined();
  });

  it("when an example is given, then it is valid against the schema it illustrates", async () => {
    const resolved = (await dereference(structuredClone(served) as never)) as unknown as OpenAPIObject;
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    const checked: string[] = [];
    for (const [method, op] of operations(resolved)) {
      const bodies = [op.requestBody, ...Object.values<unknown>(op.responses ?? {})] as {
        content?: Record<
          string,
          { schema?: SchemaObject; example?: unknown; examples?: Record<string, { value: unknown }> }
        >;
      }[];
      for (const [mediaType, media] of bodies.flatMap((body) => Object.entries(body?.content ?? {}))) {
        const values = [
          ...(media.example === undefined ? [] : [media.example]),
          ...Object.values(media.examples ?? {}).map((e) => e.value),
        ];
        for (const value of values) {
          const valid = ajv.validate(media.schema ?? {}, value);
          expect({ operation: `${method} ${op.operationId}`, mediaType, errors: valid ? null : ajv.errors }).toEqual({
            operation: `${method} ${op.operationId}`,
            mediaType,
            errors: null,
          });
          checked.push(`${op.operationId} ${mediaType}`);
        }
      }
    }
    expect(checked.length).toBeGreaterThan(20);
  });
});

describe("GET /docs", () => {
  it("when asked without an API key, then the page and Swagger UI's own files come from the gateway under a same-origin CSP", async () => {
    const page = await request(gw.app).get("/docs");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    const bundle = await request(gw.app).get("/docs/assets/swagger-ui-bundle.js");
    expect(bundle.status).toBe(200);
    expect(bundle.headers["content-type"]).toBe("text/javascript; charset=utf-8");
  });
});

import { createRequire } from "node:module";
import { dirname } from "node:path";
import express, { type IRouter } from "express";
import { pageHeaders } from "../middleware/page-headers.js";
import { ASSETS_PATH, DOCS_CSP, DOCS_HTML, INITIALIZER_JS, INITIALIZER_PATH } from "./docs-page.js";

export const DOCS_PATH = "/docs";

/** swagger-ui-dist's folder: its standalone browser bundle is served as the package ships it. */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

const docsHeaders = pageHeaders(DOCS_CSP);

/**
 * `GET /docs`: the API reference page (Swagger UI) on /openapi.json. Needs no API key and no
 * network: every file comes from this gateway. Mounted before the catch-all authentication.
 */
export function addDocsRoutes(router: IRouter): void {
  router.get(DOCS_PATH, (_req, res) => {
    docsHeaders(res);
    res.type("html").send(DOCS_HTML);
  });
  router.get(INITIALIZER_PATH, (_req, res) => {
    docsHeaders(res);
    res.type("js").send(INITIALIZER_JS);
  });
  router.use(ASSETS_PATH, express.static(SWAGGER_UI_DIR, { index: false, maxAge: "1h", setHeaders: docsHeaders }));
}

import { OPENAPI_PATH } from "./openapi.route.js";

/** Where Swagger UI's own files (the npm package's) are served. */
export const ASSETS_PATH = "/docs/assets";
export const INITIALIZER_PATH = "/docs/initializer.js";

/** The reference page: Swagger UI's stock files, no inline script (the page's CSP forbids any). */
export const DOCS_HTML = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Chorus API reference</title>
    <link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${ASSETS_PATH}/swagger-ui-bundle.js" charset="utf-8"></script>
    <script src="${INITIALIZER_PATH}" charset="utf-8"></script>
  </body>
</html>
`;

/**
 * Swagger UI on this gateway's document. `validatorUrl: null`: by default the page would ask
 * validator.swagger.io for a badge, a request off the machine.
 */
export const INITIALIZER_JS = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
`;

/**
 * Only this origin, for everything: the page works offline, and a page that tried to reach
 * another host would be refused by the browser. Swagger UI sets inline styles; its icons are data: URLs.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

// GET /api/v2/requests and batch status: query schemas, their validators and the items answered. No I/O.
export * from "./requests-list-query.schema.js";
export * from "./batch-status-query.schema.js";
export * from "./status-list-items.js";

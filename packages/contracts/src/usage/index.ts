// GET /api/v2/usage and GET /admin/usage: the query, its checks and the days it covers. No I/O.
export * from "./usage-query.schema.js";

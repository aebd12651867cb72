/**
 * A private redis-server on a free port, for tests that stop, fail over or protect Redis: the same
 * helper `npm start` uses, reached through test-support so that no workspace's tests import
 * another's sources.
 */
export { freePort, startPrivateRedis, type PrivateRedis } from "../apps/cli/src/local/redis-server.js";

// The `cluster` jest project's test environment: Node's, plus a private Redis Cluster of three
// masters started before a test file and stopped after it (after its own afterAll hooks, which an
// afterAll in a setup file would not wait for). The file's test services find the cluster's nodes
// in the global `chorusTestRedisCluster` (test-support/redis.ts). Plain CommonJS: jest loads
// environments without the TypeScript transform.
const { spawn } = require("node:child_process");
const { mkdirSync, mkdtempSync, rmSync } = require("node:fs");
const { createServer } = require("node:net");
const { tmpdir } = require("node:os");
const { join } = require("node:path");
const { TestEnvironment } = require("jest-environment-node");
const { Redis } = require("ioredis");

const MASTERS = 3;
const SLOTS = 16384;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Polls `probe` every 100 ms until it is true, or throws after `timeoutMs`. */
async function until(what, probe, timeoutMs = 20_000) {
  for (const giveUpAt = Date.now() + timeoutMs; !(await probe().catch(() => false));) {
    if (Date.now() > giveUpAt) throw new Error(`Redis Cluster: gave up waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Each node in a directory of its own (it keeps its nodes.conf there), no persistence. Built with
 * CLUSTER commands as `redis-cli --cluster create` does (slots split evenly, each node its own
 * config epoch, MEET), so a machine needs only redis-server.
 */
async function startCluster(dir, nodes) {
  for (let i = 0; i < MASTERS; i++) {
    const own = join(dir, `node-${i}`);
    mkdirSync(own);
    const port = await freePort();
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", own];
    args.push(
      "--cluster-enabled",
      "yes",
      "--cluster-config-file",
      join(own, "nodes.conf"),
      "--cluster-node-timeout",
      "2000",
    );
    const child = spawn("redis-server", args, { stdio: ["ignore", "ignore", "inherit"] });
    nodes.push({ port, child, exited: new Promise((resolve) => child.once("exit", resolve)) });
  }
  const clients = nodes.map(
    ({ port }) => new Redis({ host: "127.0.0.1", port, maxRetriesPerRequest: 1, lazyConnect: true }),
  );
  clients.forEach((client) => client.on("error", () => undefined));
  try {
    await until("every node answers", async () =>
      (await Promise.all(clients.map((c) => c.ping()))).every((reply) => reply === "PONG"),
    );
    await Promise.all(
      clients.map(async (client, i) => {
        await client.call(
          "CLUSTER",
          "ADDSLOTSRANGE",
          Math.floor((SLOTS * i) / MASTERS),
          Math.floor((SLOTS * (i + 1)) / MASTERS) - 1,
        );
        await client.call("CLUSTER", "SET-CONFIG-EPOCH", i + 1);
      }),
    );
    for (const { port } of nodes.slice(1)) await clients[0].call("CLUSTER", "MEET", "127.0.0.1", port);
    await until("every node sees every slot served", async () => {
      const infos = await Promise.all(clients.map((client) => client.call("CLUSTER", "INFO")));
      return infos.every(
        (info) => info.includes("cluster_state:ok") && info.includes(`cluster_known_nodes:${MASTERS}`),
      );
    });
  } finally {
    clients.forEach((client) => client.disconnect());
  }
}

class RedisClusterEnvironment extends TestEnvironment {
  async setup() {
    await super.setup();
    this.dir = mkdtempSync(join(tmpdir(), "chorus-cluster-"));
    this.nodes = [];
    try {
      await startCluster(this.dir, this.nodes);
    } catch (error) {
      await this.stopCluster();
      throw error;
    }
    this.global.chorusTestRedisCluster = this.nodes.map(({ port }) => `127.0.0.1:${port}`).join(",");
  }

  async stopCluster() {
    for (const { child } of this.nodes) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await Promise.all(this.nodes.map(({ exited }) => exited));
    rmSync(this.dir, { recursive: true, force: true });
  }

  async teardown() {
    await this.stopCluster();
    await super.teardown();
  }
}

module.exports = RedisClusterEnvironment;

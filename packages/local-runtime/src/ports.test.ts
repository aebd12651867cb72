import { createServer } from "node:net";
import { freePortRun } from "./ports.js";

const listen = (port: number) =>
  new Promise<() => Promise<void>>((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(() => new Promise((done) => server.close(() => done()))));
  });

describe("freePortRun", () => {
  it("when asked for 3 ports, then 3 consecutive ones below the ephemeral range can each be listened on", async () => {
    const first = await freePortRun(3);
    expect(first).toBeGreaterThanOrEqual(20_000);
    expect(first + 2).toBeLessThan(32_768);
    const closers = await Promise.all([first, first + 1, first + 2].map(listen));
    await Promise.all(closers.map((close) => close()));
  });
});

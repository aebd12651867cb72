import { readFileSync } from "node:fs";
import { APP_ENV, APP_NODE_FLAGS, appEnv, appNodeArgs, type AppName } from "./app-command.js";

const APPS: AppName[] = ["gateway", "worker"];
const repoFile = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");
/** How an npm script sets a variable: the operator's value if there is one, else the app's default. */
const scriptEnv = (app: AppName) =>
  Object.entries(APP_ENV[app]).map(([name, value]) => `${name}=\${${name}:-${value}}`);
/** `exec`: npm runs a script through `sh -c`; without it, killing npm would stop the shell and leave node running. */
const productionCommand = (app: AppName) => [
  ...scriptEnv(app),
  "exec",
  "node",
  ...APP_NODE_FLAGS[app],
  `apps/${app}/dist/main.js`,
];

describe("how the apps are started", () => {
  it("when an app is started by the launcher, the tests or the bench, then node gets its flags, then its compiled entry point", () => {
    for (const app of APPS) {
      const args = appNodeArgs(app);
      expect(args.at(-1)).toMatch(new RegExp(`/apps/${app}/dist/main\\.js$`));
      expect(args.slice(0, -1)).toEqual(APP_NODE_FLAGS[app]);
    }
    expect(APP_NODE_FLAGS.gateway).toContain("--max-semi-space-size=64");
  });

  it("when the worker is started by a launcher, then it gets one libuv pool thread unless the operator set another number", () => {
    expect(APP_ENV.worker).toEqual({ UV_THREADPOOL_SIZE: "1" });
    expect(appEnv("worker", { PATH: "/bin" })).toEqual({ PATH: "/bin", UV_THREADPOOL_SIZE: "1" });
    expect(appEnv("worker", { UV_THREADPOOL_SIZE: "4" }).UV_THREADPOOL_SIZE).toBe("4");
    expect(appEnv("gateway", { PATH: "/bin" })).toEqual({ PATH: "/bin" });
  });

  it("when an app is started by its npm script, then node replaces the shell and runs with the same Node flags and environment", () => {
    const scripts = (JSON.parse(repoFile("package.json")) as { scripts: Record<string, string> }).scripts;
    for (const app of APPS) expect(scripts[app]?.endsWith(`&& ${productionCommand(app).join(" ")}`)).toBe(true);
  });
});

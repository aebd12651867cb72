import { readFileSync } from "node:fs";
import { APP_NODE_FLAGS, appNodeArgs, type AppName } from "./app-command.js";

const APPS: AppName[] = ["gateway", "worker"];
const repoFile = (path: string) => readFileSync(new URL(`../../../../${path}`, import.meta.url), "utf8");
const productionCommand = (app: AppName) => ["node", ...APP_NODE_FLAGS[app], `apps/${app}/dist/main.js`];

describe("how the apps are started", () => {
  it("when an app is started by the launcher, the tests or the bench, then node gets its flags, then its compiled entry point", () => {
    for (const app of APPS) {
      const args = appNodeArgs(app);
      expect(args.at(-1)).toMatch(new RegExp(`/apps/${app}/dist/main\\.js$`));
      expect(args.slice(0, -1)).toEqual(APP_NODE_FLAGS[app]);
    }
    expect(APP_NODE_FLAGS.gateway).toContain("--max-semi-space-size=64");
  });

  it("when an app is started by its npm script, then it runs with the same Node flags", () => {
    const scripts = (JSON.parse(repoFile("package.json")) as { scripts: Record<string, string> }).scripts;
    for (const app of APPS) expect(scripts[app]?.endsWith(`&& ${productionCommand(app).join(" ")}`)).toBe(true);
  });
});

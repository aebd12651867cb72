import { readFileSync } from "node:fs";
import { APP_NODE_FLAGS, appEntryPoint, appNodeArgs, type AppName } from "./app-command.js";

const APPS: AppName[] = ["gateway", "worker"];
const repoFile = (path: string) => readFileSync(new URL(`../../../../${path}`, import.meta.url), "utf8");
const productionCommand = (app: AppName) => ["node", ...APP_NODE_FLAGS[app], `apps/${app}/dist/main.js`];

describe("how the apps are started", () => {
  it("when an app is started by the launcher, the tests or the bench, then its Node flags come before its entry point", () => {
    for (const app of APPS) {
      expect(appNodeArgs(app)).toEqual([...APP_NODE_FLAGS[app], appEntryPoint(app)]);
      expect(appEntryPoint(app)).toMatch(new RegExp(`/apps/${app}/dist/main\\.js$`));
    }
  });

  it("when an app is started by its npm script, then it runs with the same Node flags", () => {
    const scripts = (JSON.parse(repoFile("package.json")) as { scripts: Record<string, string> }).scripts;
    for (const app of APPS) expect(scripts[app]).toMatch(new RegExp(`&& ${productionCommand(app).join(" ")}$`));
  });
});

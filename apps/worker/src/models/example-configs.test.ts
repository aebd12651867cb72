import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadModelsConfigFile } from "./load-models-config.js";

// The README points at these files: each must be a valid configuration as written.
const directory = fileURLToPath(new URL("../../../../config/models/", import.meta.url));

describe("example models configurations", () => {
  it.each(readdirSync(directory).filter((f) => f.endsWith(".yaml")))(
    "when %s is loaded, then it is valid and maps all five models",
    async (file) => {
      const config = await loadModelsConfigFile(`${directory}${file}`);
      expect(Object.keys(config.models).sort()).toEqual(["Lightning", "Mage", "Succubus", "Witch", "default"]);
    },
  );
});

import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { MODEL_IDS, SAMPLING_BOUNDS, type ModelId } from "@chorus/contracts";
import { loadCharacterCatalog } from "./character-catalog.js";

const words = (text: string) => text.trim().split(/\s+/).length;

describe("loadCharacterCatalog with the shipped data files", () => {
  it("when loaded, then each of the five model ids has its own character", async () => {
    const catalog = await loadCharacterCatalog();
    expect(Object.keys(catalog).sort()).toEqual([...MODEL_IDS].sort());
    for (const model of MODEL_IDS) {
      expect(catalog[model].model).toBe(model);
      expect(catalog[model].botName.trim()).not.toBe("");
      expect(catalog[model].persona.trim()).not.toBe("");
    }
    expect(catalog.default.botName).toBe("Assistant");
  });

  it("when a character model is loaded, then its persona is 100-300 words, as the spec recommends", async () => {
    const catalog = await loadCharacterCatalog();
    const counts = Object.fromEntries(
      (["Witch", "Mage", "Succubus", "Lightning"] as const).map((m) => [m, words(catalog[m].persona)]),
    );
    for (const [model, count] of Object.entries(counts)) {
      expect([model, count >= 100 && count <= 300]).toEqual([model, true]);
    }
  });

  it("when loaded, then every character's sampling parameters are within the API's bounds", async () => {
    const catalog = await loadCharacterCatalog();
    for (const model of MODEL_IDS) {
      const { max_tokens, temperature, top_p } = catalog[model].sampling;
      expect(
        Number.isInteger(max_tokens) &&
          max_tokens >= SAMPLING_BOUNDS.maxTokens.min &&
          max_tokens <= SAMPLING_BOUNDS.maxTokens.max,
      ).toBe(true);
      expect(temperature >= SAMPLING_BOUNDS.temperature.min && temperature <= SAMPLING_BOUNDS.temperature.max).toBe(
        true,
      );
      expect(top_p > 0 && top_p <= SAMPLING_BOUNDS.topP.max).toBe(true);
    }
  });
});

describe("loadCharacterCatalog with a broken directory", () => {
  let dir: string;

  const valid = (model: ModelId) => ({
    model,
    botName: `${model} bot`,
    persona: "{{char}} helps {{user}}.",
    traits: ["calm"],
    sampling: { max_tokens: 150, temperature: 0.7, top_p: 0.9 },
  });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "characters-"));
    for (const model of MODEL_IDS)
      await writeFile(join(dir, `${model.toLowerCase()}.json`), JSON.stringify(valid(model)));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const directory = () => pathToFileURL(`${dir}/`);

  it("when every file is valid, then the catalog is read from the given directory", async () => {
    const catalog = await loadCharacterCatalog(directory());
    expect(catalog.Mage).toEqual(valid("Mage"));
  });

  it("when a file names the wrong model, then loading fails with a message naming that file", async () => {
    await writeFile(join(dir, "mage.json"), JSON.stringify(valid("Witch")));
    await expect(loadCharacterCatalog(directory())).rejects.toThrow(join(dir, "mage.json"));
  });

  it("when a file lacks a persona, then loading fails with a message naming that file", async () => {
    const { persona: _dropped, ...noPersona } = valid("Succubus");
    await writeFile(join(dir, "succubus.json"), JSON.stringify(noPersona));
    await expect(loadCharacterCatalog(directory())).rejects.toThrow(join(dir, "succubus.json"));
  });

  it("when a file is missing, then loading fails with a message naming that file", async () => {
    await rm(join(dir, "lightning.json"));
    await expect(loadCharacterCatalog(directory())).rejects.toThrow(join(dir, "lightning.json"));
  });

  it("when a file is not valid JSON, then loading fails with a message naming that file", async () => {
    await writeFile(join(dir, "witch.json"), "{ broken");
    await expect(loadCharacterCatalog(directory())).rejects.toThrow(join(dir, "witch.json"));
  });
});

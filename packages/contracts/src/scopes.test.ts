import { describe, expect, it } from "@jest/globals";
import { MODEL_IDS } from "./models.js";
import { KNOWN_SCOPES, grants, isKnownScope, scopeFor, type Operation } from "./scopes.js";

const text = (model: (typeof MODEL_IDS)[number]): Operation => ({ kind: "text", model });
const tts: Operation = { kind: "tts" };
const everyOperation: Operation[] = [...MODEL_IDS.map(text), tts];

describe("grants", () => {
  it("when a key holds `*`, then every operation is granted", () => {
    for (const operation of everyOperation) expect(grants(["*"], operation)).toBe(true);
  });

  it("when a key holds `text:*`, then every text model is granted and speech is not", () => {
    for (const model of MODEL_IDS) expect(grants(["text:*"], text(model))).toBe(true);
    expect(grants(["text:*"], tts)).toBe(false);
  });

  it("when a key holds `text:<model>`, then only that model is granted", () => {
    for (const held of MODEL_IDS) {
      for (const asked of MODEL_IDS)
        expect([held, asked, grants([`text:${held}`], text(asked))]).toEqual([held, asked, held === asked]);
      expect(grants([`text:${held}`], tts)).toBe(false);
    }
  });

  it("when a key holds `tts`, then speech is granted and no text model is", () => {
    expect(grants(["tts"], tts)).toBe(true);
    for (const model of MODEL_IDS) expect(grants(["tts"], text(model))).toBe(false);
  });

  it("when a key holds several scopes, then each one counts", () => {
    const scopes = ["text:Mage", "tts"];
    expect(grants(scopes, text("Mage"))).toBe(true);
    expect(grants(scopes, tts)).toBe(true);
    expect(grants(scopes, text("Witch"))).toBe(false);
  });

  it("when a key holds no scopes, then nothing is granted", () => {
    for (const operation of everyOperation) expect(grants([], operation)).toBe(false);
  });

  it("when a scope differs in case or shape from a known one, then it grants nothing", () => {
    const nearMisses = [
      "text:witch",
      "TEXT:Witch",
      "text",
      "text:",
      "text:**",
      "Text:*",
      "TTS",
      "tts:*",
      " *",
      "* ",
      "**",
    ];
    for (const operation of everyOperation) expect(grants(nearMisses, operation)).toBe(false);
  });
});

describe("scopeFor", () => {
  it("when asked for an operation, then it names the narrowest scope that grants it", () => {
    expect(scopeFor(text("Lightning"))).toBe("text:Lightning");
    expect(scopeFor(tts)).toBe("tts");
  });
});

describe("isKnownScope", () => {
  it("when given `*`, `text:*`, `tts` or `text:<model>` for each model id, then it is known", () => {
    const expected = [
      "*",
      "text:*",
      "tts",
      "text:default",
      "text:Witch",
      "text:Mage",
      "text:Succubus",
      "text:Lightning",
    ];
    for (const scope of expected) expect([scope, isKnownScope(scope)]).toEqual([scope, true]);
    expect([...KNOWN_SCOPES].sort()).toEqual([...expected].sort());
  });

  it("when given anything else, then it is unknown", () => {
    for (const scope of ["", "text:witch", "text:unknown", "tts:*", "admin", "TEXT:*", " tts"]) {
      expect([scope, isKnownScope(scope)]).toEqual([scope, false]);
    }
  });
});

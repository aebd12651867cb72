import { prettyFormat } from "./logger.js";

const MESSAGE = Symbol.for("message");
const ESCAPE = String.fromCharCode(27);

function render(colour: boolean): string {
  const info = prettyFormat(colour).transform({
    level: "info",
    message: "gateway listening",
    service: "gateway",
    [Symbol.for("level")]: "info",
  });
  if (!info) throw new Error("the format dropped the entry");
  return String((info as Record<symbol, unknown>)[MESSAGE]);
}

describe("the pretty log format", () => {
  it("when the output is not a terminal, then its lines carry no colour codes", () => {
    expect(render(false)).not.toContain(ESCAPE);
    expect(render(false)).toMatch(/^\S+ gateway info: gateway listening$/);
  });

  it("when the output is a terminal, then the level is coloured", () => {
    expect(render(true)).toContain(`${ESCAPE}[32minfo${ESCAPE}[39m`);
  });
});

import { parseArgs } from "node:util";
import { plainParseError } from "./command-line.js";

const failure = (args: string[], allowPositionals = false) => {
  try {
    parseArgs({
      args,
      allowPositionals,
      options: { name: { type: "string", short: "n" }, rotate: { type: "boolean" } },
    });
  } catch (error) {
    return plainParseError(error);
  }
  throw new Error("parsed");
};

describe("a command line that parseArgs refuses, in a user's words", () => {
  it("when an option is misspelt, then it is named without Node's note on positional arguments", () => {
    expect(failure(["--nam", "demo"], true)).toBe("unknown option --nam (the options are listed below)");
  });

  it("when an option lacks its value, then it says which option needs one", () => {
    expect(failure(["--name"])).toBe("option --name needs a value");
  });

  it("when a command that takes no arguments gets one, then it names the argument", () => {
    expect(failure(["extra"])).toBe("unexpected argument 'extra': this command takes options only");
  });
});

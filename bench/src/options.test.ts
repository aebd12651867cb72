import { availableParallelism } from "node:os";
import { parseBenchOptions, UsageError } from "./options.js";

describe("parseBenchOptions", () => {
  it("when nothing is given, then the full-scale defaults apply and results go to bench-results/latest.json", () => {
    const options = parseBenchOptions([], "/repo");
    expect(options).toEqual(
      expect.objectContaining({
        durationS: 8,
        connections: 50,
        rounds: 5,
        warmupS: 2,
        queueSamples: 150,
        quick: false,
        profileDir: null,
      }),
    );
    expect(options.out).toBe("/repo/bench-results/latest.json");
  });

  it("when --quick is given, then every setting shrinks to smoke-test scale", () => {
    expect(parseBenchOptions(["--quick"], "/repo")).toEqual(
      expect.objectContaining({ durationS: 1, connections: 4, rounds: 1, warmupS: 0, queueSamples: 10, quick: true }),
    );
  });

  it("when --quick and an explicit setting are given, then the explicit one wins", () => {
    expect(parseBenchOptions(["--quick", "--connections", "20"], "/repo").connections).toBe(20);
  });

  it("when paths are relative, then they resolve against the working directory", () => {
    const options = parseBenchOptions(["--out", "x/r.json", "--profile", "prof"], "/repo");
    expect([options.out, options.profileDir]).toEqual(["/repo/x/r.json", "/repo/prof"]);
  });

  it("when --anchor is something else than llama-server or none, then it is a usage error", () => {
    expect(parseBenchOptions(["--anchor", "none"]).anchor).toBe("none");
    expect(() => parseBenchOptions(["--anchor", "vllm"])).toThrow(
      new UsageError("--anchor takes llama-server or none; got 'vllm'"),
    );
  });

  it("when a number is malformed or too small, then it is a usage error naming the option", () => {
    expect(() => parseBenchOptions(["--duration", "0"])).toThrow(
      new UsageError("--duration must be a number >= 1, got '0'"),
    );
    expect(() => parseBenchOptions(["--connections", "2.5"])).toThrow(UsageError);
    expect(() => parseBenchOptions(["--rounds", "many"])).toThrow(/--rounds/);
  });

  it("when nothing or --quick is given, then the speech and generation rows get full or smoke-test scale", () => {
    expect(parseBenchOptions([], "/repo")).toEqual(
      expect.objectContaining({
        formats: ["mp3", "wav", "opus", "flac", "pcm"],
        speechRuns: 5,
        generations: 5,
        maxTokens: 256,
        threads: availableParallelism(),
        largerModel: true,
        anchor: "llama-server",
      }),
    );
    expect(parseBenchOptions(["--quick"], "/repo")).toEqual(
      expect.objectContaining({
        formats: ["wav"],
        speechRuns: 1,
        generations: 1,
        maxTokens: 32,
        threads: 1,
        largerModel: false,
        anchor: "none",
      }),
    );
  });

  it("when --larger-model or --no-larger-model is given, then it overrides the scale's choice", () => {
    expect(parseBenchOptions(["--quick", "--larger-model"], "/repo").largerModel).toBe(true);
    expect(parseBenchOptions(["--no-larger-model"], "/repo").largerModel).toBe(false);
  });

  it("when --formats lists formats, then those are measured once each; an unknown one is a usage error", () => {
    expect(parseBenchOptions(["--formats", "opus, wav,opus"], "/repo").formats).toEqual(["opus", "wav"]);
    expect(() => parseBenchOptions(["--formats", "wav,aac"])).toThrow(/--formats .* got 'wav,aac'/);
    expect(() => parseBenchOptions(["--formats", ","])).toThrow(UsageError);
  });

  it("when --rows lists row groups, then only those run, in the bench's own order; an unknown one is a usage error", () => {
    expect(parseBenchOptions([], "/repo").rowGroups).toEqual([
      "memory",
      "submit",
      "status",
      "status-steps",
      "queue",
      "noisy",
      "waiting",
      "speech",
      "speech-first-byte",
      "generation",
      "inference",
      "openai",
      "routing",
      "takeover",
      "batch",
    ]);
    expect(parseBenchOptions(["--rows", "status-steps,status"], "/repo").rowGroups).toEqual(["status", "status-steps"]);
    expect(parseBenchOptions(["--rows", "status, submit"], "/repo").rowGroups).toEqual(["submit", "status"]);
    expect(() => parseBenchOptions(["--rows", "submit,latency"])).toThrow(/--rows .* got 'submit,latency'/);
    expect(() => parseBenchOptions(["--rows", ""])).toThrow(UsageError);
  });

  it("when an unknown option is given, then parsing fails", () => {
    expect(() => parseBenchOptions(["--fast"])).toThrow(/--fast/);
  });
});

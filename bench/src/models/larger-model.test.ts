import { ggufFile, readGgufEntries, stringEntry, u32Entry, type GgufEntry } from "./gguf-file.js";
import { int32ArrayEntry } from "./gguf-file.test-helpers.js";
import { largerModelParts, quantizeQ8 } from "./larger-model.js";

function fromHalf(bits: number): number {
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  const sign = bits & 0x8000 ? -1 : 1;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

describe("quantizeQ8", () => {
  it("when a block is quantized, then each value comes back within half a step of the f16 scale", () => {
    const values = Float32Array.from({ length: 64 }, (_, i) => Math.sin(i) * 0.05);
    const q = quantizeQ8(values);
    expect(q.length).toBe(2 * 34);
    for (let block = 0; block < 2; block++) {
      const scale = fromHalf(q.readUInt16LE(block * 34));
      for (let i = 0; i < 32; i++)
        expect(Math.abs(q.readInt8(block * 34 + 2 + i) * scale - (values[block * 32 + i] ?? 0))).toBeLessThanOrEqual(
          scale * 0.51,
        );
    }
  });

  it("when a block is all zeros, then its scale and values are zero", () => {
    expect(quantizeQ8(new Float32Array(32)).equals(Buffer.alloc(34))).toBe(true);
  });
});

describe("largerModelParts", () => {
  const tokenizer = [
    stringEntry("general.architecture", "llama"),
    stringEntry("general.name", "fixture"),
    u32Entry("llama.context_length", 2048),
    u32Entry("llama.embedding_length", 64),
  ];
  const source = Buffer.concat(
    ggufFile(
      [
        ...tokenizer,
        stringEntry("tokenizer.ggml.model", "llama"),
        int32ArrayEntry("tokenizer.ggml.token_type", [2, 3, 3, 1, 1, 1]),
      ],
      [],
    ),
  );
  const file = Buffer.concat(largerModelParts(source, { embedding: 64, layers: 2, heads: 4, feedForward: 96 }));
  const entries = new Map(readGgufEntries(file).map((e): [string, GgufEntry] => [e.key, e]));
  const u32 = (key: string) => entries.get(key)?.raw.readUInt32LE(4);

  it("when made, then it is a llama model with the source's tokenizer and context length, in the new shape", () => {
    expect(entries.get("general.architecture")?.raw.toString("utf8", 12)).toBe("llama");
    expect(entries.get("tokenizer.ggml.model")?.raw.toString("utf8", 12)).toBe("llama");
    expect([
      u32("llama.context_length"),
      u32("llama.embedding_length"),
      u32("llama.block_count"),
      u32("llama.feed_forward_length"),
      u32("llama.rope.dimension_count"),
    ]).toEqual([2048, 64, 2, 96, 16]);
  });

  it("when made, then it holds the output, embedding, norm and every layer's tensors", () => {
    expect(Number(file.readBigUInt64LE(8))).toBe(3 + 2 * 9);
  });

  it("when made twice, then the bytes are the same (fixed seed)", () => {
    expect(
      Buffer.concat(largerModelParts(source, { embedding: 64, layers: 2, heads: 4, feedForward: 96 })).equals(file),
    ).toBe(true);
  });
});

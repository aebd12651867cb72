import { int32ArrayEntry } from "./gguf-file.test-helpers.js";
import {
  f32Entry,
  GGUF_ALIGNMENT,
  ggufFile,
  GgmlType,
  readGgufEntries,
  readIntArray,
  stringEntry,
  u32Entry,
  type GgufEntry,
} from "./gguf-file.js";

describe("ggufFile and readGgufEntries", () => {
  const entries = [
    stringEntry("general.architecture", "llama"),
    u32Entry("llama.block_count", 8),
    f32Entry("eps", 0.5),
    int32ArrayEntry("types", [1, 3, 6]),
  ];
  const tensor = { name: "t", dims: [3], type: GgmlType.f32, data: Buffer.from(new Float32Array([1, 2, 3]).buffer) };
  const file = Buffer.concat(ggufFile(entries, [tensor, { ...tensor, name: "u" }]));

  it("when a file is written, then its entries read back byte for byte, in order", () => {
    const read = readGgufEntries(file);
    expect(read.map((e) => e.key)).toEqual(["general.architecture", "llama.block_count", "eps", "types"]);
    expect(read.map((e) => e.raw.toString("hex"))).toEqual(entries.map((e) => e.raw.toString("hex")));
    expect(readIntArray(read[3] as GgufEntry)).toEqual([1, 3, 6]);
  });

  it("when a file is written, then it has the v3 header and every tensor starts on a 32-byte boundary", () => {
    expect([
      file.toString("ascii", 0, 4),
      file.readUInt32LE(4),
      Number(file.readBigUInt64LE(8)),
      Number(file.readBigUInt64LE(16)),
    ]).toEqual(["GGUF", 3, 2, 4]);
    const second = file.length - GGUF_ALIGNMENT;
    expect(file.length % GGUF_ALIGNMENT).toBe(0);
    expect(new Float32Array(file.buffer.slice(file.byteOffset + second, file.byteOffset + second + 12))).toEqual(
      new Float32Array([1, 2, 3]),
    );
  });

  it("when the bytes are not GGUF v3, then reading fails", () => {
    expect(() => readGgufEntries(Buffer.alloc(32))).toThrow(/not a GGUF v3 file/);
  });
});

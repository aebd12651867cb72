import { GgufType, type GgufEntry } from "./gguf-file.js";

/** An int32 array entry (token types, say), which the writer itself never needs to build. */
export function int32ArrayEntry(key: string, values: number[]): GgufEntry {
  const raw = Buffer.alloc(16 + values.length * 4);
  raw.writeUInt32LE(GgufType.array, 0);
  raw.writeUInt32LE(GgufType.i32, 4);
  raw.writeBigUInt64LE(BigInt(values.length), 8);
  values.forEach((v, i) => raw.writeInt32LE(v, 16 + i * 4));
  return { key, raw };
}

/**
 * Just enough of the GGUF format (v3, little-endian) to copy a model's metadata and write a new
 * model beside it: the header and key/value section are read generically; tensors are written
 * from given bytes. See https://github.com/ggml-org/ggml/blob/master/docs/gguf.md.
 */
const MAGIC = 0x46554747; // "GGUF"
export const GGUF_ALIGNMENT = 32;

/** GGUF value types. */
export const GgufType = {
  u8: 0,
  i8: 1,
  u16: 2,
  i16: 3,
  u32: 4,
  i32: 5,
  f32: 6,
  bool: 7,
  string: 8,
  array: 9,
  u64: 10,
  i64: 11,
  f64: 12,
} as const;
const SCALAR_BYTES: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

/** ggml tensor types used here. */
export const GgmlType = { f32: 0, q8_0: 8 } as const;

export interface GgufEntry {
  key: string;
  /** The value's type and bytes exactly as stored (so an entry can be copied as it is). */
  raw: Buffer;
}

/** The key/value entries of a GGUF file's header. */
export function readGgufEntries(file: Buffer): GgufEntry[] {
  if (file.readUInt32LE(0) !== MAGIC || file.readUInt32LE(4) !== 3) throw new Error("not a GGUF v3 file");
  const count = Number(file.readBigUInt64LE(16));
  let at = 24;
  const stringEnd = (from: number) => from + 8 + Number(file.readBigUInt64LE(from));
  const valueEnd = (type: number, from: number): number => {
    if (type === GgufType.string) return stringEnd(from);
    if (type !== GgufType.array) {
      const size = SCALAR_BYTES[type];
      if (size === undefined) throw new Error(`unknown GGUF value type ${type}`);
      return from + size;
    }
    const itemType = file.readUInt32LE(from);
    const items = Number(file.readBigUInt64LE(from + 4));
    let end = from + 12;
    for (let i = 0; i < items; i++) end = valueEnd(itemType, end);
    return end;
  };
  const entries: GgufEntry[] = [];
  for (let i = 0; i < count; i++) {
    const keyEnd = stringEnd(at);
    const key = file.toString("utf8", at + 8, keyEnd);
    const end = valueEnd(file.readUInt32LE(keyEnd), keyEnd + 4);
    entries.push({ key, raw: file.subarray(keyEnd, end) });
    at = end;
  }
  return entries;
}

/** The items of an integer array entry (token types, say). */
export function readIntArray(entry: GgufEntry): number[] {
  const itemType = entry.raw.readUInt32LE(4);
  const items = Number(entry.raw.readBigUInt64LE(8));
  if (itemType !== GgufType.i32 && itemType !== GgufType.u32) throw new Error(`${entry.key}: not an int32 array`);
  return Array.from({ length: items }, (_, i) => entry.raw.readInt32LE(16 + i * 4));
}

function ggufString(text: string): Buffer {
  const bytes = Buffer.from(text, "utf8");
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(bytes.length));
  return Buffer.concat([length, bytes]);
}

export const stringEntry = (key: string, value: string): GgufEntry => ({
  key,
  raw: Buffer.concat([u32(GgufType.string), ggufString(value)]),
});
export const u32Entry = (key: string, value: number): GgufEntry => ({
  key,
  raw: Buffer.concat([u32(GgufType.u32), u32(value)]),
});
export function f32Entry(key: string, value: number): GgufEntry {
  const raw = Buffer.alloc(8);
  raw.writeUInt32LE(GgufType.f32, 0);
  raw.writeFloatLE(value, 4);
  return { key, raw };
}

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value);
  return b;
}

export interface GgufTensor {
  name: string;
  /** ne0 first: the length of a row, then the number of rows. */
  dims: number[];
  type: number;
  data: Buffer;
}

const padding = (length: number) => Buffer.alloc((GGUF_ALIGNMENT - (length % GGUF_ALIGNMENT)) % GGUF_ALIGNMENT);

/** A whole GGUF v3 file: header, entries, tensor infos, then the tensors, each aligned to 32 bytes. */
export function ggufFile(entries: GgufEntry[], tensors: GgufTensor[]): Buffer[] {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(3, 4);
  header.writeBigUInt64LE(BigInt(tensors.length), 8);
  header.writeBigUInt64LE(BigInt(entries.length), 16);
  const parts: Buffer[] = [header, ...entries.flatMap((e) => [ggufString(e.key), e.raw])];
  let offset = 0;
  for (const tensor of tensors) {
    const info = Buffer.alloc(4 + tensor.dims.length * 8 + 12);
    info.writeUInt32LE(tensor.dims.length, 0);
    tensor.dims.forEach((d, i) => info.writeBigUInt64LE(BigInt(d), 4 + i * 8));
    info.writeUInt32LE(tensor.type, 4 + tensor.dims.length * 8);
    info.writeBigUInt64LE(BigInt(offset), 8 + tensor.dims.length * 8);
    parts.push(ggufString(tensor.name), info);
    offset += tensor.data.length + padding(tensor.data.length).length;
  }
  parts.push(padding(parts.reduce((sum, p) => sum + p.length, 0)));
  for (const tensor of tensors) parts.push(tensor.data, padding(tensor.data.length));
  return parts;
}

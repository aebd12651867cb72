import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  f32Entry,
  ggufFile,
  GgmlType,
  readGgufEntries,
  readIntArray,
  stringEntry,
  u32Entry,
  type GgufTensor,
} from "./gguf-file.js";

/**
 * "A larger model shape" for the generation rows, made offline: the shared fixture's tokenizer
 * (512 tokens, its chat template) with the transformer shape of llama2.c's stories42M (dim 512,
 * 8 layers, 8 heads, FFN 1376; ~26M parameters, 100x the fixture) and random Q8_0 weights from
 * a fixed seed. Its text is gibberish; its cost per token is that of a model that size, which is
 * what a tokens/s ratio needs. Control tokens (end of text, ...) get zero output weights while the
 * others get a wide logit spread, so replies run to max_tokens like a real story model's would.
 */
export interface ModelShape {
  embedding: number;
  layers: number;
  heads: number;
  feedForward: number;
}

export const LARGER_SHAPE: ModelShape = { embedding: 512, layers: 8, heads: 8, feedForward: 1376 };
export const LARGER_MODEL_LABEL = "stories42M shape, random Q8_0";

const Q8_BLOCK = 32;
const CONTROL_TOKEN_TYPES = new Set([2, 3]); // unknown, control

function toHalf(value: number): number {
  const bits = new Uint32Array(new Float32Array([value]).buffer)[0] ?? 0;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
  const mantissa = bits & 0x7fffff;
  if (exponent <= 0) return exponent < -10 ? sign : sign | ((((mantissa | 0x800000) >> (1 - exponent)) + 0x1000) >> 13);
  if (exponent >= 31) return sign | 0x7c00;
  return sign | ((exponent << 10) + ((mantissa + 0x1000) >> 13));
}

/** Q8_0: per block of 32 values, an f16 scale then 32 signed bytes. */
export function quantizeQ8(values: Float32Array): Buffer {
  const out = Buffer.alloc((values.length / Q8_BLOCK) * (2 + Q8_BLOCK));
  for (let block = 0; block * Q8_BLOCK < values.length; block++) {
    const from = block * Q8_BLOCK;
    let max = 0;
    for (let i = 0; i < Q8_BLOCK; i++) max = Math.max(max, Math.abs(values[from + i] ?? 0));
    const scale = max / 127;
    const at = block * (2 + Q8_BLOCK);
    out.writeUInt16LE(toHalf(scale), at);
    for (let i = 0; i < Q8_BLOCK; i++)
      out.writeInt8(scale === 0 ? 0 : Math.round((values[from + i] ?? 0) / scale), at + 2 + i);
  }
  return out;
}

/** Uniform in [-limit, limit] from xorshift32 (fixed seed: the same file every run). */
function randomValues(count: number, limit: number, state: { seed: number }): Float32Array {
  const values = new Float32Array(count);
  let x = state.seed;
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    values[i] = ((x >>> 0) / 0xffffffff) * 2 * limit - limit;
  }
  state.seed = x;
  return values;
}

function buildTensors(shape: ModelShape, vocab: number, controlTokens: number[]): GgufTensor[] {
  const { embedding: d, feedForward: ff } = shape;
  const state = { seed: 0x2545f491 };
  const matrix = (name: string, rows: number, cols: number, limit = Math.sqrt(3 / cols)): GgufTensor => ({
    name,
    dims: [cols, rows],
    type: GgmlType.q8_0,
    data: quantizeQ8(randomValues(rows * cols, limit, state)),
  });
  const ones = (name: string): GgufTensor => ({
    name,
    dims: [d],
    type: GgmlType.f32,
    data: Buffer.from(new Float32Array(d).fill(1).buffer),
  });
  const output = randomValues(vocab * d, Math.sqrt(3 / d) * 10, state); // logits spread ~10
  for (const token of controlTokens) output.fill(0, token * d, (token + 1) * d);
  const tensors = [
    matrix("token_embd.weight", vocab, d, Math.sqrt(3)),
    ones("output_norm.weight"),
    { name: "output.weight", dims: [d, vocab], type: GgmlType.q8_0, data: quantizeQ8(output) },
  ];
  for (let layer = 0; layer < shape.layers; layer++) {
    const blk = `blk.${layer}`;
    tensors.push(
      ones(`${blk}.attn_norm.weight`),
      matrix(`${blk}.attn_q.weight`, d, d),
      matrix(`${blk}.attn_k.weight`, d, d),
      matrix(`${blk}.attn_v.weight`, d, d),
    );
    tensors.push(matrix(`${blk}.attn_output.weight`, d, d), ones(`${blk}.ffn_norm.weight`));
    tensors.push(
      matrix(`${blk}.ffn_gate.weight`, ff, d),
      matrix(`${blk}.ffn_up.weight`, ff, d),
      matrix(`${blk}.ffn_down.weight`, d, ff),
    );
  }
  return tensors;
}

/** The GGUF file (as parts to concatenate) of `shape` with the tokenizer of the GGUF file `source`. */
export function largerModelParts(source: Buffer, shape: ModelShape = LARGER_SHAPE): Buffer[] {
  const entries = readGgufEntries(source);
  const tokenTypes = entries.find((e) => e.key === "tokenizer.ggml.token_type");
  if (!tokenTypes) throw new Error("the source model has no tokenizer.ggml.token_type");
  const types = readIntArray(tokenTypes);
  const controlTokens = types.flatMap((type, token) => (CONTROL_TOKEN_TYPES.has(type) ? [token] : []));
  const architecture = entries.find((e) => e.key === "general.architecture")?.raw.toString("utf8", 12) ?? "llama";
  const context = entries.find((e) => e.key === `${architecture}.context_length`)?.raw.readUInt32LE(4) ?? 2048;
  const shapeEntries = [
    stringEntry("general.architecture", "llama"),
    stringEntry("general.name", `chorus-bench ${LARGER_MODEL_LABEL}`),
    u32Entry("llama.context_length", Math.min(context, 2048)),
    u32Entry("llama.embedding_length", shape.embedding),
    u32Entry("llama.feed_forward_length", shape.feedForward),
    u32Entry("llama.block_count", shape.layers),
    u32Entry("llama.attention.head_count", shape.heads),
    u32Entry("llama.attention.head_count_kv", shape.heads),
    u32Entry("llama.rope.dimension_count", shape.embedding / shape.heads),
    f32Entry("llama.attention.layer_norm_rms_epsilon", 1e-5),
  ];
  const tokenizer = entries.filter((e) => e.key.startsWith("tokenizer."));
  return ggufFile([...shapeEntries, ...tokenizer], buildTensors(shape, types.length, controlTokens));
}

/** The larger model made from the GGUF file `fixture`, in a fresh temporary directory, and how to remove it. */
export async function writeLargerModel(fixture: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const parts = largerModelParts(await readFile(fixture));
  const dir = await mkdtemp(join(tmpdir(), "chorus-bench-model-"));
  const path = join(dir, "stories42M-shape-random-q8_0.gguf");
  await writeFile(path, Buffer.concat(parts));
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}

import OpusScript from "opusscript";
import { ascii } from "./audio-inspect.js";

export interface OggPageInfo {
  flags: number;
  granulePosition: bigint;
  serial: number;
  sequence: number;
  crcValid: boolean;
  /** Packets completed on this page (none of ours continue onto the next page). */
  packets: Uint8Array[];
}

/** Bit by bit, straight from RFC 3533 (polynomial 0x04c11db7): deliberately not the writer's table. */
function crc32Bitwise(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 24;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
    crc >>>= 0;
  }
  return crc;
}

export function parseOggPages(bytes: Uint8Array): OggPageInfo[] {
  const pages: OggPageInfo[] = [];
  for (let offset = 0; offset < bytes.length;) {
    if (ascii(bytes, offset, 4) !== "OggS") throw new Error(`no OggS capture pattern at byte ${offset}`);
    const view = new DataView(bytes.buffer, bytes.byteOffset + offset);
    const count = view.getUint8(26);
    const lacing = bytes.subarray(offset + 27, offset + 27 + count);
    const bodyLength = lacing.reduce((sum, value) => sum + value, 0);
    const end = offset + 27 + count + bodyLength;
    const copy = new Uint8Array(bytes.subarray(offset, end)); // a copy even for a Buffer, whose slice() is a view
    copy.fill(0, 22, 26);
    const packets: Uint8Array[] = [];
    let start = offset + 27 + count;
    let length = 0;
    for (const value of lacing) {
      length += value;
      if (value < 255) {
        packets.push(bytes.subarray(start, start + length));
        start += length;
        length = 0;
      }
    }
    pages.push({
      flags: view.getUint8(5),
      granulePosition: view.getBigInt64(6, true),
      serial: view.getUint32(14, true),
      sequence: view.getUint32(18, true),
      crcValid: crc32Bitwise(copy) === view.getUint32(22, true),
      packets,
    });
    offset = end;
  }
  return pages;
}

export interface OggOpusInfo {
  pages: OggPageInfo[];
  head: {
    version: number;
    channels: number;
    preSkip: number;
    inputSampleRate: number;
    outputGain: number;
    mappingFamily: number;
  };
  tagsMagic: string;
  audioPackets: Uint8Array[];
  finalGranule: bigint;
  /** (final granule - pre-skip) / 48 kHz: the playable length (RFC 7845 §4.4). */
  durationSeconds: number;
}

export function inspectOggOpus(bytes: Uint8Array): OggOpusInfo {
  const pages = parseOggPages(bytes);
  const [first, second] = pages;
  const headPacket = first?.packets[0];
  if (!first || !second || !headPacket || ascii(headPacket, 0, 8) !== "OpusHead")
    throw new Error("no OpusHead on the first page");
  const view = new DataView(headPacket.buffer, headPacket.byteOffset, headPacket.byteLength);
  const head = {
    version: view.getUint8(8),
    channels: view.getUint8(9),
    preSkip: view.getUint16(10, true),
    inputSampleRate: view.getUint32(12, true),
    outputGain: view.getInt16(16, true),
    mappingFamily: view.getUint8(18),
  };
  const finalGranule = pages[pages.length - 1]?.granulePosition ?? 0n;
  return {
    pages,
    head,
    tagsMagic: ascii(second.packets[0] ?? new Uint8Array(), 0, 8),
    audioPackets: pages.slice(2).flatMap((page) => page.packets),
    finalGranule,
    durationSeconds: Number(finalGranule - BigInt(head.preSkip)) / 48000,
  };
}

/** Decodes the audio packets with libopus at 48 kHz, dropping the pre-skip and trimming to the final granule. */
export function decodeOggOpus(info: OggOpusInfo): Int16Array {
  const decoder = new OpusScript(48000, 1);
  try {
    const parts = info.audioPackets.map((packet) => {
      const pcm = decoder.decode(Buffer.from(packet));
      return new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));
    });
    const all = Int16Array.from(parts.flatMap((part) => Array.from(part)));
    return all.subarray(info.head.preSkip, Number(info.finalGranule));
  } finally {
    decoder.delete();
  }
}

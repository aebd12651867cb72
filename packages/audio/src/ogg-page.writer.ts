/**
 * Ogg page framing (RFC 3533), written here because no maintained npm package muxes Ogg for Node:
 * the Ogg libraries on npm are decoders, browser-worker builds of libogg, or native bindings that
 * no longer build. Framing is small and fixed: a 27-byte header, segment lacing and a CRC-32.
 */

const CRC_TABLE = (() => {
  // Ogg's CRC-32: polynomial 0x04c11db7, MSB first, initial value 0, no final XOR.
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i += 1) {
    let r = i << 24;
    for (let bit = 0; bit < 8; bit += 1) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

export function oggCrc32(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) ^ (CRC_TABLE[((crc >>> 24) ^ byte) & 0xff] as number)) >>> 0;
  return crc;
}

export const PAGE_FLAGS = { continued: 0x01, firstPage: 0x02, lastPage: 0x04 } as const;

export interface OggPage {
  /** Whole packets only: a packet never spans pages here, so the continuation flag is never set. */
  packets: Uint8Array[];
  /** Codec-defined position after the last packet on the page (for Opus: 48 kHz samples). */
  granulePosition: bigint;
  flags: number;
}

/** Lacing values: a run of 255s and a final value below 255 (0 when the length is a multiple of 255). */
function lacing(packet: Uint8Array): number[] {
  const values = new Array<number>(Math.floor(packet.length / 255)).fill(255);
  values.push(packet.length % 255);
  return values;
}

/** Most lacing values one page can hold. */
export const MAX_SEGMENTS = 255;

export function segmentCount(packets: Uint8Array[]): number {
  return packets.reduce((sum, packet) => sum + Math.floor(packet.length / 255) + 1, 0);
}

/** Serializes one page of logical stream `serial` with sequence number `sequence`. */
export function writeOggPage(page: OggPage, serial: number, sequence: number): Uint8Array {
  const segments = page.packets.flatMap(lacing);
  if (segments.length > MAX_SEGMENTS) throw new Error(`an Ogg page holds at most 255 segments, not ${segments.length}`);
  const bodyLength = page.packets.reduce((sum, packet) => sum + packet.length, 0);
  const out = new Uint8Array(27 + segments.length + bodyLength);
  const view = new DataView(out.buffer);
  out.set([0x4f, 0x67, 0x67, 0x53]); // "OggS"
  view.setUint8(4, 0); // stream structure version
  view.setUint8(5, page.flags);
  view.setBigInt64(6, page.granulePosition, true);
  view.setUint32(14, serial, true);
  view.setUint32(18, sequence, true);
  view.setUint8(26, segments.length); // the CRC field (22..25) stays 0 while the CRC is computed
  out.set(segments, 27);
  let offset = 27 + segments.length;
  for (const packet of page.packets) {
    out.set(packet, offset);
    offset += packet.length;
  }
  view.setUint32(22, oggCrc32(out), true);
  return out;
}

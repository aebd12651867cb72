import { describe, expect, it } from "@jest/globals";
import { parseOggPages } from "../../../test-support/audio/ogg-opus-inspect.js";
import { PAGE_FLAGS, oggCrc32, segmentCount, writeOggPage } from "./ogg-page.writer.js";

describe("Ogg page writer", () => {
  it("when a packet is a multiple of 255 bytes, then its lacing ends with a 0 so the reader sees where it stops", () => {
    const packets = [new Uint8Array(510).fill(7), new Uint8Array(3).fill(9), new Uint8Array(0)];
    const page = writeOggPage({ packets, granulePosition: 960n, flags: PAGE_FLAGS.firstPage }, 0x1234, 5);
    expect(Array.from(page.subarray(26, 27 + 5))).toEqual([5, 255, 255, 0, 3, 0]);
    const [parsed] = parseOggPages(page);
    expect(parsed?.packets.map((p) => p.length)).toEqual([510, 3, 0]);
    expect(parsed).toMatchObject({ flags: 2, granulePosition: 960n, serial: 0x1234, sequence: 5, crcValid: true });
  });

  it("when more than 255 lacing values would be needed, then writing refuses", () => {
    const packets = [new Uint8Array(255 * 255)];
    expect(segmentCount(packets)).toBe(256);
    expect(() => writeOggPage({ packets, granulePosition: 0n, flags: 0 }, 1, 0)).toThrow("at most 255 segments");
  });

  it("when the CRC is computed, then it is Ogg's CRC-32 (polynomial 0x04c11db7, initial 0, no reflection, no final XOR)", () => {
    // The check value of that CRC over "123456789"; the bitwise reader in the test helpers agrees on
    // files written by libogg (sox), and the Opus tests check every page we write against it.
    expect(oggCrc32(new TextEncoder().encode("123456789")).toString(16)).toBe("89a1897f");
  });
});

import { randomInt } from "node:crypto";
import OpusScript from "opusscript";
import { MAX_SEGMENTS, PAGE_FLAGS, segmentCount, writeOggPage, type OggPage } from "./ogg-page.writer.js";
import type { PcmAudio } from "./pcm-audio.js";
import { resample } from "./resample.js";

/** libopus accepts 8/12/16/24/48 kHz; 24 kHz keeps all of eSpeak's 22.05 kHz band (Opus "super-wideband"). */
export const OPUS_ENCODER_RATE = 24000;
export const FRAME_SAMPLES = OPUS_ENCODER_RATE / 50; // 20 ms, Opus's default frame
/** Ogg Opus counts every position in 48 kHz samples, whatever the encoder's rate (RFC 7845 §4). */
const GRANULE_RATE = 48000;
const GRANULE_PER_FRAME = (FRAME_SAMPLES * GRANULE_RATE) / OPUS_ENCODER_RATE;
/**
 * libopus's look-ahead at 48 kHz (2.5 ms + 4 ms of delay compensation), which the decoder must skip.
 * opusscript cannot ask OPUS_GET_LOOKAHEAD (its CTL call passes no pointer), so it is spelled out.
 */
export const OPUS_PRE_SKIP = 312;
const BITRATE = 32000;
const OPUS_SET_COMPLEXITY_REQUEST = 4010;
/**
 * Complexity 5 of 10: 4-7× faster than libopus's default 10 on this WASM build (62 s of speech:
 * ~0.25 s instead of 1-1.8 s) for a 1 % larger file. The OPUS_SIGNAL_VOICE hint was tried and
 * dropped: it forces the slower SILK path for no audible gain at 32 kbit/s.
 */
const COMPLEXITY = 5;
/** About one second of audio per page, as RFC 7845 recommends for seeking granularity. */
const PACKETS_PER_PAGE = 50;

function opusHead(inputSampleRate: number): Uint8Array {
  const head = new Uint8Array(19);
  const view = new DataView(head.buffer);
  head.set(new TextEncoder().encode("OpusHead"));
  view.setUint8(8, 1); // version
  view.setUint8(9, 1); // channels
  view.setUint16(10, OPUS_PRE_SKIP, true);
  view.setUint32(12, inputSampleRate, true); // informational: the rate before encoding
  view.setInt16(16, 0, true); // output gain
  view.setUint8(18, 0); // channel mapping family 0: mono or stereo
  return head;
}

function opusTags(): Uint8Array {
  const vendor = new TextEncoder().encode("libopus 1.4 (opusscript)");
  const tags = new Uint8Array(8 + 4 + vendor.length + 4);
  const view = new DataView(tags.buffer);
  tags.set(new TextEncoder().encode("OpusTags"));
  view.setUint32(8, vendor.length, true);
  tags.set(vendor, 12);
  view.setUint32(12 + vendor.length, 0, true); // no user comments
  return tags;
}

/** A libopus encoder as this format uses it (mono, 32 kbit/s, complexity 5); delete() it when done. */
export function createOpusEncoder(): OpusScript {
  const encoder = new OpusScript(OPUS_ENCODER_RATE, 1, OpusScript.Application.AUDIO);
  encoder.setBitrate(BITRATE);
  encoder.encoderCTL(OPUS_SET_COMPLEXITY_REQUEST, COMPLEXITY);
  return encoder;
}

/** Frames (20 ms packets) that cover `samples` input samples and the encoder's look-ahead after them. */
export function framesToCover(samples: number): number {
  return Math.ceil(Number(endGranuleOf(samples)) / GRANULE_PER_FRAME);
}

/** `frames` 20 ms packets of `samples` from its start, zero-padded past its end. */
export function encodeFrames(encoder: OpusScript, samples: Int16Array, frames: number): Uint8Array[] {
  const packets: Uint8Array[] = [];
  for (let f = 0; f < frames; f += 1) {
    const frame = new Int16Array(FRAME_SAMPLES);
    frame.set(samples.subarray(f * FRAME_SAMPLES, (f + 1) * FRAME_SAMPLES));
    packets.push(new Uint8Array(encoder.encode(Buffer.from(frame.buffer), FRAME_SAMPLES)));
  }
  return packets;
}

/** 20 ms Opus packets covering `samples`, then enough silence to flush the encoder's look-ahead. */
function encodePackets(samples: Int16Array): Uint8Array[] {
  const encoder = createOpusEncoder();
  try {
    return encodeFrames(encoder, samples, framesToCover(samples.length));
  } finally {
    encoder.delete();
  }
}

/**
 * Groups packets into pages of about a second, after `framesBefore` frames already paged: each
 * page's granule position counts the frames up to its end.
 */
export function packetPages(packets: Uint8Array[], framesBefore = 0): OggPage[] {
  const pages: OggPage[] = [];
  let current: Uint8Array[] = [];
  let done = framesBefore;
  const flush = (): void => {
    done += current.length;
    pages.push({ packets: current, granulePosition: BigInt(done * GRANULE_PER_FRAME), flags: 0 });
    current = [];
  };
  for (const packet of packets) {
    if (current.length === PACKETS_PER_PAGE || segmentCount([...current, packet]) > MAX_SEGMENTS) flush();
    current.push(packet);
  }
  if (current.length > 0) flush();
  return pages;
}

/** The last page's granule trims the padding (end trimming, RFC 7845 §4.4), and it says it is last. */
export function markLastPage(pages: OggPage[], endGranule: bigint): OggPage[] {
  const last = pages[pages.length - 1] as OggPage;
  last.granulePosition = endGranule;
  last.flags |= PAGE_FLAGS.lastPage;
  return pages;
}

/** The end granule of `samples` input samples at the encoder's rate: their length plus the pre-skip. */
export function endGranuleOf(samples: number): bigint {
  return BigInt(samples * (GRANULE_RATE / OPUS_ENCODER_RATE) + OPUS_PRE_SKIP);
}

/** The two header pages of an Ogg Opus stream: OpusHead, then OpusTags. */
export function headerPages(inputSampleRate: number): OggPage[] {
  return [
    { packets: [opusHead(inputSampleRate)], granulePosition: 0n, flags: PAGE_FLAGS.firstPage },
    { packets: [opusTags()], granulePosition: 0n, flags: 0 },
  ];
}

/** Opus (libopus via opusscript) in an Ogg container, as `.opus` files are (RFC 7845). */
export async function encodeOggOpus(audio: PcmAudio, serial: number = randomInt(2 ** 32)): Promise<Uint8Array> {
  const pcm = await resample(audio, OPUS_ENCODER_RATE);
  const packets = encodePackets(pcm.samples);
  const pages: OggPage[] = [
    ...headerPages(audio.sampleRate),
    ...markLastPage(packetPages(packets), endGranuleOf(pcm.samples.length)),
  ];
  const bytes = pages.map((page, sequence) => writeOggPage(page, serial, sequence));
  return Buffer.concat(bytes);
}

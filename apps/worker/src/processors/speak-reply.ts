import {
  defaultVoiceFor,
  replyAudioPath,
  type ModelId,
  type SpeakOptions,
  type SpeechJobResult,
} from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import type { SpeechAudioStore } from "@chorus/platform/speech-audio";
import { SpeechEngineError, type SpeechEngine } from "../engines/tts/speech-engine.js";
import { spokenPart } from "./spoken-part.js";

export interface ReplySpeechDeps {
  /** Null where this worker has no speech engine: `speak` then ends in `audioError`. */
  speech: SpeechEngine | null;
  audio: SpeechAudioStore;
  /** SPOKEN_REPLY_TTL_SECONDS, never longer than the record that points at the audio. */
  ttlSeconds: number;
  /** Characters spoken at most: the speech endpoint's bound on `text` (SPEECH_LIMITS.textMaxChars). */
  maxChars: number;
}

/** What the completed record gains (`audioUrl` or `audioError`), and what was spoken, for the key's usage. */
export interface SpokenReply {
  record: { audioUrl?: string; audioTruncated?: true; audioError?: string };
  spoken?: { characters: number; audioSeconds: number };
}

export interface ReplyToSpeak {
  requestId: string;
  model: ModelId;
  reply: string;
  speak: SpeakOptions;
  signal: AbortSignal;
  log: Logger;
}

/**
 * Speaks a finished reply and stores the audio under the request's id, before the record
 * is completed, so a completed record's `audioUrl` always has its audio. A failure to speak does not
 * fail the request: the text is there, and `audioError` says why there is no voice. A cancel does.
 */
export async function speakReply(
  deps: ReplySpeechDeps | null | undefined,
  { requestId, model, reply, speak, signal, log }: ReplyToSpeak,
): Promise<SpokenReply> {
  if (!deps?.speech) return unspoken("text-to-speech is not available on the worker that generated the reply");
  if (reply === "") return unspoken("the reply is empty: there is nothing to speak");
  // Bounded as a speech request is: a reply of 2048 tokens would otherwise be minutes of audio.
  const spoken = spokenPart(reply, deps.maxChars);
  const request = {
    text: spoken.text,
    voice: speak.voice ?? defaultVoiceFor(model),
    format: speak.format,
    speed: speak.speed,
  };
  const started = Date.now();
  try {
    const audio = await deps.speech.synthesize(request, signal);
    const meta: SpeechJobResult = {
      format: audio.format,
      contentType: audio.contentType,
      byteLength: audio.bytes.length,
      sampleRate: audio.sampleRate,
      durationSeconds: audio.durationSeconds,
    };
    await deps.audio.write(requestId, audio.bytes, meta, deps.ttlSeconds);
    log.info("reply spoken", {
      engine: audio.engine,
      voice: request.voice,
      format: audio.format,
      bytes: audio.bytes.length,
      whole: spoken.whole,
      ms: Date.now() - started,
    });
    const record = { audioUrl: replyAudioPath(requestId), ...(!spoken.whole && { audioTruncated: true as const }) };
    return { record, spoken: { characters: [...spoken.text].length, audioSeconds: audio.durationSeconds ?? 0 } };
  } catch (error) {
    if (signal.aborted) throw error;
    log.warn("reply could not be spoken", { error: String(error) });
    return unspoken(
      error instanceof SpeechEngineError
        ? `speech failed: ${error.message}`
        : "speech failed: the audio could not be made or stored",
    );
  }
}

function unspoken(audioError: string): SpokenReply {
  return { record: { audioError } };
}

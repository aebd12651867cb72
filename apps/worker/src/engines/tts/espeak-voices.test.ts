import { describe, expect, it } from "@jest/globals";
import { SPEECH_LIMITS, VOICE_IDS, type VoiceId } from "@chorus/contracts";
import { ESPEAK_VOICES, ESPEAK_WPM, espeakSettings } from "./espeak-voices.js";

/** Words per minute the settings amount to, counting word gaps and time-stretching. */
function effectiveRate(voice: VoiceId, speed: number): number {
  const settings = espeakSettings(voice, speed);
  // Calibration: at 80 wpm one word lasts ~0.63 s and each -g unit adds ~30 ms to it.
  const secondsPerWord = settings.wordGap > 0 ? 60 / 95 + settings.wordGap * 0.03 : 60 / settings.wordsPerMinute;
  return (60 / secondsPerWord) * settings.tempo;
}

describe("espeakSettings", () => {
  it("when every catalogue voice is mapped, then its eSpeak spec names a language and a variant", () => {
    expect(Object.keys(ESPEAK_VOICES).sort()).toEqual([...VOICE_IDS].sort());
    for (const voice of Object.values(ESPEAK_VOICES)) expect(voice.spec).toMatch(/^en(-[a-z0-9]+)*\+[a-zA-Z0-9]+$/);
  });

  it("when speed is 1 on a generic voice, then eSpeak speaks at its default 175 wpm, natural pitch, no gaps", () => {
    expect(espeakSettings("en-gb-male", 1)).toEqual({
      voice: "en-gb+m1",
      pitch: 50,
      wordsPerMinute: 175,
      wordGap: 0,
      tempo: 1,
    });
  });

  it("when speed is 2, then the rate doubles within eSpeak's own range", () => {
    expect(espeakSettings("en-us-female", 2)).toMatchObject({ wordsPerMinute: 350, wordGap: 0, tempo: 1 });
  });

  it("when speed is below what eSpeak can do (80 wpm), then the rate stays at 80 and word gaps slow it further", () => {
    expect(espeakSettings("en-us-female", 0.25)).toMatchObject({
      wordsPerMinute: ESPEAK_WPM.min,
      wordGap: 17,
      tempo: 1,
    });
  });

  it("when speed is above what eSpeak can do (450 wpm), then the rate stays at 450 and the rest is time-stretching", () => {
    const settings = espeakSettings("en-us-female", 4);
    expect(settings).toMatchObject({ wordsPerMinute: ESPEAK_WPM.max, wordGap: 0 });
    expect(settings.tempo).toBeCloseTo(700 / 450, 10);
  });

  it("when a character voice speaks, then its own pace and pitch apply", () => {
    expect(espeakSettings("Lightning", 1)).toMatchObject({
      voice: "en-us+m4",
      pitch: 64,
      wordsPerMinute: Math.round(175 * 1.15),
    });
    expect(espeakSettings("Mage", 1)).toMatchObject({
      voice: "en-gb+m7",
      pitch: 30,
      wordsPerMinute: Math.round(175 * 0.9),
    });
  });

  it.each(["en-us-female", "Mage", "Lightning"] as const)(
    "when speed rises across the public range, then %s speaks strictly faster",
    (voice) => {
      const speeds = [SPEECH_LIMITS.speed.min, 0.3, 0.4, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 3.5, SPEECH_LIMITS.speed.max];
      const rates = speeds.map((speed) => effectiveRate(voice, speed));
      rates.forEach((rate, i) => expect(rate).toBeGreaterThan(rates[i - 1] ?? 0));
    },
  );
});

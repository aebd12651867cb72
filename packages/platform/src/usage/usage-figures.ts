/** How a job ended, as its key's usage counts it. */
export const JOB_ENDS = ["completed", "error", "cancelled"] as const;
export type JobEnd = (typeof JOB_ENDS)[number];

/** What a key's finished jobs used in one bucket (a day, a model, or both). */
export interface UsageFigures {
  /** Finished jobs, by how they ended. */
  requests: Record<JobEnd, number>;
  promptTokens: number;
  /** Of the prompt tokens, those the engine reused from its cache. */
  cachedPromptTokens: number;
  completionTokens: number;
  /** Characters spoken (speech requests and spoken replies). */
  characters: number;
  /** Seconds of audio made, to the millisecond. */
  audioSeconds: number;
}

/** What one finished job adds; absent amounts are 0. */
export type JobAmounts = Partial<Omit<UsageFigures, "requests">>;

/** Counter names in the day's hash. Audio is kept in whole ms: HINCRBY keeps sums exact where floats would drift. */
const AMOUNT_FIELDS = {
  promptTokens: "promptTokens",
  cachedPromptTokens: "cachedPromptTokens",
  completionTokens: "completionTokens",
  characters: "characters",
  audioSeconds: "audioMs",
} as const satisfies Record<keyof JobAmounts, string>;

/**
 * A metered counter's field in a key's day hash: `m:<counter>:<model>`. The counter never holds a
 * colon, so a model id may; the `m:` keeps these apart from the admitted-request counts in the hash.
 */
const fieldOf = (counter: string, model: string) => `m:${counter}:${model}`;
const FIELD = /^m:([A-Za-z]+):(.*)$/s;

export function zeroFigures(): UsageFigures {
  return {
    requests: { completed: 0, error: 0, cancelled: 0 },
    promptTokens: 0,
    cachedPromptTokens: 0,
    completionTokens: 0,
    characters: 0,
    audioSeconds: 0,
  };
}

/** The hash fields and whole amounts one finished job adds (zeros left out). */
export function fieldsOfJob(model: string, end: JobEnd, amounts: JobAmounts): [string, number][] {
  const fields: [string, number][] = [[fieldOf(end, model), 1]];
  for (const [name, counter] of Object.entries(AMOUNT_FIELDS) as [keyof JobAmounts, string][]) {
    const value = amounts[name] ?? 0;
    const whole = name === "audioSeconds" ? Math.round(value * 1000) : Math.round(value);
    if (whole > 0) fields.push([fieldOf(counter, model), whole]);
  }
  return fields;
}

/** Adds `from` into `into` (in place) and returns it. */
export function addFigures(into: UsageFigures, from: UsageFigures): UsageFigures {
  for (const end of JOB_ENDS) into.requests[end] += from.requests[end];
  into.promptTokens += from.promptTokens;
  into.cachedPromptTokens += from.cachedPromptTokens;
  into.completionTokens += from.completionTokens;
  into.characters += from.characters;
  into.audioSeconds = Math.round((into.audioSeconds + from.audioSeconds) * 1000) / 1000;
  return into;
}

export const isEmptyFigures = (figures: UsageFigures) =>
  JOB_ENDS.every((end) => figures.requests[end] === 0) &&
  figures.promptTokens + figures.cachedPromptTokens + figures.completionTokens + figures.characters === 0 &&
  figures.audioSeconds === 0;

/** A day hash's metered figures by model (other fields, such as admitted requests, left out). */
export function figuresByModel(hash: Record<string, string>): Map<string, UsageFigures> {
  const byModel = new Map<string, UsageFigures>();
  for (const [field, raw] of Object.entries(hash)) {
    const match = FIELD.exec(field);
    if (!match) continue;
    const [, counter, model] = match as unknown as [string, string, string];
    const figures = byModel.get(model) ?? zeroFigures();
    byModel.set(model, figures);
    const value = Number(raw);
    if ((JOB_ENDS as readonly string[]).includes(counter)) figures.requests[counter as JobEnd] += value;
    else if (counter === AMOUNT_FIELDS.audioSeconds) figures.audioSeconds += value / 1000;
    else {
      const name = (Object.keys(AMOUNT_FIELDS) as (keyof JobAmounts)[]).find((n) => AMOUNT_FIELDS[n] === counter);
      if (name && name !== "audioSeconds") figures[name] += value;
    }
  }
  return byModel;
}

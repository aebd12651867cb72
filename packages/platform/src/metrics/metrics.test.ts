import { createMetrics } from "./metrics.js";
import { metricsRequestAllowed } from "./metrics-token.js";
import { readQueueDepths, type QueueDepthState } from "./queue-depth.js";

/** The value of one sample line, e.g. `jobs_total{queue="text",outcome="failed"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("createMetrics", () => {
  it("when gateway requests and rejections are recorded, then counters and histograms show them with their labels", async () => {
    const metrics = createMetrics("gateway");
    metrics.recordHttpRequest("POST", "/api/text/:model", 200, 0.004);
    metrics.recordHttpRequest("POST", "/api/text/:model", 200, 0.02);
    metrics.recordHttpRequest("GET", "unmatched", 404, 0.001);
    metrics.recordRateLimitRejection("text");
    const text = await metrics.render();
    expect(sample(text, 'http_requests_total{method="POST",route="/api/text/:model",status="200"}')).toBe(2);
    expect(sample(text, 'http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(
      sample(
        text,
        'http_request_duration_seconds_bucket{le="0.005",method="POST",route="/api/text/:model",status="200"}',
      ),
    ).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_bucket{le="10",method="POST",route="/api/text/:model",status="200"}'),
    ).toBe(2);
    expect(
      sample(text, 'http_request_duration_seconds_sum{method="POST",route="/api/text/:model",status="200"}'),
    ).toBeCloseTo(0.024);
    expect(sample(text, 'rate_limit_rejections_total{operation="text"}')).toBe(1);
    expect(text).toContain("process_cpu_user_seconds_total");
    expect(text).not.toContain("jobs_total");
  });

  it("when metered jobs are recorded, then usage totals show their tokens and audio by model and kind, with no key label", async () => {
    const metrics = createMetrics("worker");
    metrics.recordUsage({ model: "Witch", promptTokens: 30, cachedPromptTokens: 10, completionTokens: 7 });
    metrics.recordUsage({ model: "Witch", promptTokens: 5, completionTokens: 2, audioSeconds: 1.5 });
    metrics.recordUsage({ model: "espeak-ng", audioSeconds: 2.25 });
    const text = await metrics.render();
    expect(sample(text, 'usage_tokens_total{model="Witch",kind="prompt"}')).toBe(35);
    expect(sample(text, 'usage_tokens_total{model="Witch",kind="cached_prompt"}')).toBe(10);
    expect(sample(text, 'usage_tokens_total{model="Witch",kind="completion"}')).toBe(9);
    expect(sample(text, 'usage_audio_seconds_total{model="Witch"}')).toBe(1.5);
    expect(sample(text, 'usage_audio_seconds_total{model="espeak-ng"}')).toBe(2.25);
    expect(text).not.toMatch(/usage_[a-z_]+\{[^}]*key/);
  });

  it("when worker jobs, generations and syntheses are recorded, then each metric shows them", async () => {
    const metrics = createMetrics("worker");
    metrics.recordJob("text-generation", "completed");
    metrics.recordJob("text-generation", "cancelled");
    metrics.recordGeneration("Witch", 120, 4);
    metrics.recordPromptCache("Witch", 400, 300);
    metrics.recordPromptCache("Witch", 100, 0);
    metrics.recordSpeech("mp3", 2.5, 0.3);
    metrics.recordSpeech("wav", null, null);
    const text = await metrics.render();
    expect(sample(text, 'jobs_total{queue="text-generation",outcome="completed"}')).toBe(1);
    expect(sample(text, 'jobs_total{queue="text-generation",outcome="cancelled"}')).toBe(1);
    expect(sample(text, 'generation_tokens_total{model="Witch"}')).toBe(120);
    expect(sample(text, 'generation_tokens_per_second_bucket{le="20",model="Witch"}')).toBe(0);
    expect(sample(text, 'generation_tokens_per_second_bucket{le="50",model="Witch"}')).toBe(1);
    expect(sample(text, 'generation_duration_seconds_sum{model="Witch"}')).toBe(4);
    expect(sample(text, 'generation_prompt_tokens_total{model="Witch"}')).toBe(500);
    expect(sample(text, 'generation_cached_prompt_tokens_total{model="Witch"}')).toBe(300);
    expect(sample(text, 'speech_audio_seconds_total{format="mp3"}')).toBe(2.5);
    expect(sample(text, 'speech_synthesis_duration_seconds_count{format="mp3"}')).toBe(1);
    // An unknown duration is left out, not counted as zero.
    expect(text).not.toContain('format="wav"');
    expect(text).not.toContain("http_requests_total");
  });

  it("when two registries exist in one process, then neither sees the other's samples", async () => {
    const a = createMetrics("gateway");
    const b = createMetrics("gateway");
    a.recordRateLimitRejection("tts");
    expect(sample(await a.render(), 'rate_limit_rejections_total{operation="tts"}')).toBe(1);
    expect(await b.render()).not.toContain('operation="tts"');
  });

  it("when a queue depth reader is given, then each scrape reports its counts per queue and state", async () => {
    const counts = { waiting: 3, active: 1, delayed: 0 };
    const queue = {
      name: "text-generation",
      getJobCounts: (...states: QueueDepthState[]) =>
        Promise.resolve(Object.fromEntries(states.map((s) => [s, counts[s]]))),
    };
    const metrics = createMetrics("worker", { queueDepth: readQueueDepths([queue]) });
    expect(sample(await metrics.render(), 'queue_depth{queue="text-generation",state="waiting"}')).toBe(3);
    counts.waiting = 7;
    const text = await metrics.render();
    expect(sample(text, 'queue_depth{queue="text-generation",state="waiting"}')).toBe(7);
    expect(sample(text, 'queue_depth{queue="text-generation",state="active"}')).toBe(1);
    expect(sample(text, 'queue_depth{queue="text-generation",state="delayed"}')).toBe(0);
  });

  it("when the reader hangs, then the scrape returns after the timeout without queue depths and counts the error", async () => {
    let calls = 0;
    const hanging = () => {
      calls++;
      return new Promise<never>(() => undefined);
    };
    const metrics = createMetrics("gateway", { queueDepth: hanging, queueDepthTimeoutMs: 50 });
    const started = Date.now();
    const text = await metrics.render();
    await metrics.render();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(text).not.toMatch(/^queue_depth\{/m);
    // The counter is read while the current scrape's read is still pending: it shows the earlier two.
    expect(sample(await metrics.render(), "queue_depth_read_errors_total")).toBe(2);
    // Scrapes share the one pending read rather than piling up new ones.
    expect(calls).toBe(1);
  });
});

describe("metricsRequestAllowed", () => {
  it("when no token is configured, then every request is allowed", () => {
    expect(metricsRequestAllowed(undefined, undefined)).toBe(true);
    expect(metricsRequestAllowed(undefined, "")).toBe(true);
  });

  it("when a token is configured, then only 'Bearer <token>' is allowed", () => {
    const token = "s3cret-metrics-token";
    expect(metricsRequestAllowed(`Bearer ${token}`, token)).toBe(true);
    expect(metricsRequestAllowed(`bearer ${token}`, token)).toBe(true);
    expect(metricsRequestAllowed(undefined, token)).toBe(false);
    expect(metricsRequestAllowed(`Bearer ${token}x`, token)).toBe(false);
    expect(metricsRequestAllowed(`Basic ${token}`, token)).toBe(false);
    expect(metricsRequestAllowed("Bearer ", token)).toBe(false);
  });
});

import { afterEach, beforeEach, describe, expect, it, jest } from "@jest/globals";
import type { ReplyDelta } from "@chorus/contracts";
import { STOP_SEQUENCES } from "../engines/llm/stop-sequences.js";
import { ReplyDeltaPublisher } from "./reply-delta-publisher.js";

const INTERVAL = 50;

describe("ReplyDeltaPublisher", () => {
  let published: ReplyDelta[];
  let publisher: ReplyDeltaPublisher;
  /** Settles the publish in flight (a microtask turn for its .finally). */
  const settle = () => Promise.resolve().then(() => Promise.resolve());

  beforeEach(() => {
    jest.useFakeTimers();
    published = [];
    publisher = new ReplyDeltaPublisher(
      { id: "r1", attempt: "a" },
      (message) => Promise.resolve(published.push(JSON.parse(message) as ReplyDelta)),
      INTERVAL,
      STOP_SEQUENCES,
      () => jest.now(),
    );
  });
  afterEach(() => {
    publisher.stop();
    jest.useRealTimers();
  });

  it("when the first text comes, then it is published at once, cleaned as the reply will be", () => {
    publisher.onText("  Once upon");
    expect(published).toEqual([{ id: "r1", attempt: "a", at: 0, text: "Once upon" }]);
  });

  it("when texts come faster than the interval, then the latest goes out once, where the last delta ended", async () => {
    publisher.onText("Once");
    await settle();
    publisher.onText("Once upon");
    publisher.onText("Once upon a");
    publisher.onText("Once upon a time");
    expect(published).toHaveLength(1);
    jest.advanceTimersByTime(INTERVAL);
    expect(published).toEqual([
      { id: "r1", attempt: "a", at: 0, text: "Once" },
      { id: "r1", attempt: "a", at: 4, text: " upon a time" },
    ]);
  });

  it("when a publish is in flight, then the next waits for it and then carries the latest text", async () => {
    let release: () => void = () => undefined;
    const held: string[] = [];
    const slow = new ReplyDeltaPublisher(
      { id: "r2", attempt: "a" },
      (message) => new Promise((resolve) => ((release = () => resolve(undefined)), held.push(message))),
      INTERVAL,
      STOP_SEQUENCES,
      () => jest.now(),
    );
    slow.onText("One");
    jest.advanceTimersByTime(INTERVAL * 3);
    slow.onText("One two");
    expect(held).toHaveLength(1);
    release();
    await settle();
    expect(held.map((m) => JSON.parse(m) as ReplyDelta)).toEqual([
      { id: "r2", attempt: "a", at: 0, text: "One" },
      { id: "r2", attempt: "a", at: 3, text: " two" },
    ]);
    slow.stop();
  });

  it("when the text ends in the start of a stop sequence, then that part waits, and a stop sequence is never published", async () => {
    publisher.onText("Hello\nYo");
    await settle();
    jest.advanceTimersByTime(INTERVAL);
    publisher.onText("Hello\nYou: and more");
    jest.advanceTimersByTime(INTERVAL);
    expect(published).toEqual([{ id: "r1", attempt: "a", at: 0, text: "Hello" }]);
  });

  it("when the job has its own stop sequences, then their starts wait too, and they are never published", async () => {
    const own: ReplyDelta[] = [];
    const stops = [...STOP_SEQUENCES, "THE END"];
    const withStops = new ReplyDeltaPublisher(
      { id: "r3", attempt: "a" },
      (message) => Promise.resolve(own.push(JSON.parse(message) as ReplyDelta)),
      INTERVAL,
      stops,
      () => jest.now(),
    );
    withStops.onText("And so THE E");
    await settle();
    jest.advanceTimersByTime(INTERVAL);
    withStops.onText("And so THE END. More");
    jest.advanceTimersByTime(INTERVAL);
    expect(own).toEqual([{ id: "r3", attempt: "a", at: 0, text: "And so" }]);
    withStops.stop();
  });

  it("when stopped, then a pending text is never published", async () => {
    publisher.onText("One");
    await settle();
    publisher.onText("One two");
    publisher.stop();
    jest.advanceTimersByTime(INTERVAL * 2);
    expect(published).toEqual([{ id: "r1", attempt: "a", at: 0, text: "One" }]);
  });
});

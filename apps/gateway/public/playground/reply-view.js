// @ts-check
// A bot reply in the chat log: live progress, queue position and ETA, the text as it grows, Stop
// while it runs and Speak once it is there.
import { byId, expectElement, find } from "./dom.js";

/** @typedef {import("/playground/client/index.js").StatusRecord} StatusRecord */

/** @param {number} value */
const seconds = (value) => (value < 10 ? value.toFixed(1) : Math.round(value).toString());

/**
 * "2 ahead in the queue · about 12 s left", "writing · about 3.4 s left".
 * @param {StatusRecord} record
 */
function describeProgress(record) {
  const parts = [
    record.queuePosition === undefined
      ? "writing"
      : record.queuePosition === 0
        ? "next in the queue"
        : `${record.queuePosition} ahead in the queue`,
  ];
  if (record.estimatedTimeRemaining !== undefined) parts.push(`about ${seconds(record.estimatedTimeRemaining)} s left`);
  return parts.join(" · ");
}

/** @param {StatusRecord} record */
function describeEnd(record) {
  if (record.status === "completed")
    return record.processingTime === undefined
      ? `${record.tokens} tokens`
      : `${record.tokens} tokens in ${seconds(record.processingTime)} s`;
  return record.error === "cancelled" ? "Cancelled" : `Failed: ${record.error}`;
}

export class ReplyView {
  /**
   * A new reply by `botName`, appended to `log`; `onStop` and `onSpeak` are the buttons' actions.
   * @param {HTMLElement} log
   * @param {string} botName
   * @param {{ onStop: () => void, onSpeak: (text: string) => void }} actions
   */
  constructor(log, botName, { onStop, onSpeak }) {
    const template = byId("reply-template", HTMLTemplateElement);
    this.element = expectElement(
      template.content.firstElementChild?.cloneNode(true),
      HTMLLIElement,
      "#reply-template's reply",
    );
    find(this.element, ".who", HTMLSpanElement).textContent = botName;
    this.text = find(this.element, ".reply-text", HTMLDivElement);
    this.progress = find(this.element, "progress", HTMLProgressElement);
    this.meta = find(this.element, ".reply-meta", HTMLSpanElement);
    this.stop = find(this.element, ".stop", HTMLButtonElement);
    this.speak = find(this.element, ".speak", HTMLButtonElement);
    this.meta.textContent = "sending…";
    this.stop.addEventListener("click", () => {
      this.stop.disabled = true;
      onStop();
    });
    this.speak.addEventListener("click", () => onSpeak(this.text.textContent ?? ""));
    log.append(this.element);
    this.element.scrollIntoView({ block: "end" });
  }

  /**
   * Shows a snapshot of the record (while processing, or final).
   * @param {StatusRecord} record
   */
  update(record) {
    if (record.status === "processing") {
      this.progress.value = record.progress ?? 0;
      this.meta.textContent = describeProgress(record);
      if (record.partialReply !== undefined) this.text.textContent = record.partialReply;
      return;
    }
    this.finish(record);
  }

  /** @param {StatusRecord} record */
  finish(record) {
    const cancelled = record.status === "error" && record.error === "cancelled";
    this.element.dataset.state = cancelled ? "cancelled" : record.status;
    // Screen readers read the finished reply once, not every token on the way.
    this.element.setAttribute("aria-busy", "false");
    this.meta.textContent = describeEnd(record);
    this.stop.hidden = true;
    if (record.status === "completed") {
      this.progress.value = 1;
      this.text.textContent = record.reply ?? "";
      this.speak.hidden = this.text.textContent === "";
    }
    this.element.scrollIntoView({ block: "end" });
  }

  remove() {
    this.element.remove();
  }
}

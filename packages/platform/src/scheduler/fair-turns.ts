/**
 * Fair turns between API keys: the text queue's side of a request's life (join, start, leave) and
 * its place in line (the scripts join-queue-8, start-turn-3, leave-queue-5 and queue-place-3 in src/lua/).
 *
 * Each request gets a turn when it joins: one after its key's previous request, and never earlier
 * than the turn the workers are serving now (start-time fair queueing with one unit per request).
 * The turn is the BullMQ priority of its job, and BullMQ hands out the lowest priority first, in
 * arrival order within one priority. So a key with a hundred requests waiting holds turns n+1 ..
 * n+100 while a key that sends one now gets n+1: it starts after about one request of every other
 * busy key, not after the hundred. Within one key turns only grow: its requests start in the order
 * they were accepted.
 *
 * The waiting set holds the same order (score = turn * 2^32 + ticket), so a waiting request's rank
 * there is the number of requests that will start before it, read with one ZRANK. A request that
 * arrives later with an earlier turn (a quieter key) may move in front of it: the rank says who
 * starts first as the queue stands.
 *
 * BullMQ's priorities end at 2^21 - 1, so turns are capped there (beyond it the queue is first come,
 * first served until it drains), and the count starts over when the waiting set drains after
 * turn 2^20: at one request a turn, the cap is two million requests of unbroken backlog.
 *
 * The same scripts keep each key's count of requests not yet final (the in-flight cap): a join
 * refuses a key at its cap, and whoever turns a record final takes it off the count. Membership in
 * the owners hash decides, so a step counted twice changes nothing.
 *
 * BullMQ keeps prioritized jobs in a sorted set, not in its wait list, so the backlog list holds one
 * token per waiting request (added and taken as the waiting set gains and loses an id): its LLEN is
 * what list-length autoscalers such as KEDA's redis scaler read.
 *
 * Every key here is in the text queue's hash slot (see redis-keys.ts), with BullMQ's own.
 */

/** BullMQ's highest job priority (its PRIORITY_LIMIT: a higher one is refused). */
export const LAST_TURN = 2 ** 21 - 1;
/** Past this turn the count starts over whenever no request waits. */
export const RESTART_TURNS_AFTER = 2 ** 20;

/** A join: the request's ticket and turn (its job's priority), or the key's cap reached. */
export type QueueJoin =
  { joined: true; ticket: number; turn: number } | { joined: false; held: number; averageJobSeconds: number | null };

export function parseQueueJoin([first, second, third]: [number, number, string?]): QueueJoin {
  if (first === 0) return { joined: false, held: second, averageJobSeconds: third ? Number(third) : null };
  return { joined: true, ticket: first, turn: second };
}

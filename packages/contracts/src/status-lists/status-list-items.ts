import type { StatusRecord } from "../status-record.js";

/** One request of GET /api/v2/requests: its id, model and acceptance time, then its status record. */
export type RequestListItem = { id: string; model: string; createdAt: string } & StatusRecord;

export interface RequestsListPage {
  data: RequestListItem[];
  /** Pass as `cursor` for the next (older) page; null when there is none. */
  nextCursor: string | null;
}

/** An id of a batch that is unknown, expired or another key's: the same answer for all three. */
export interface BatchStatusNotFound {
  id: string;
  error: { code: "NOT_FOUND"; message: string };
}

/** One id of GET /api/v2/status?ids=…: its status record, or why there is none. */
export type BatchStatusItem = ({ id: string } & StatusRecord) | BatchStatusNotFound;

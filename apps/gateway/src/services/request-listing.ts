import { ApiError, type JobState, type RequestListItem, type RequestsListPage } from "@chorus/contracts";
import type { IndexPosition, RequestIndex, StatusStore, StoredStatus } from "@chorus/platform/scheduler";
import { ownedBy } from "./owned-status.js";

/**
 * Index entries one listing reads at most. A status filter that matches few requests would
 * otherwise read a key's whole history for one page: past this the page comes back short (even
 * empty) with a nextCursor where the reading stopped, and the client goes on from there.
 */
export const MAX_ENTRIES_READ = 1000;

/** Index entries read at once under a status filter (that may skip most): MAX_ENTRIES_READ in 10 slices. */
const FILTERED_SLICE = 100;

const CURSOR = /^(\d{1,16}):([A-Za-z0-9-]{1,64})$/;

/** The cursor is the last place read, so a page boundary does not move as new requests arrive. */
export function encodeCursor(position: IndexPosition): string {
  return Buffer.from(`${position.acceptedAt}:${position.id}`).toString("base64url");
}

export function decodeCursor(cursor: string): IndexPosition {
  const match = CURSOR.exec(Buffer.from(cursor, "base64url").toString());
  if (!match || encodeCursor({ acceptedAt: Number(match[1]), id: match[2] as string }) !== cursor) {
    throw ApiError.invalidParameter(
      "cursor",
      "string (a nextCursor from an earlier page)",
      "cursor is not a nextCursor this endpoint returned",
    );
  }
  return { acceptedAt: Number(match[1]), id: match[2] as string };
}

export function toListItem(id: string, stored: StoredStatus): RequestListItem {
  return { id, model: stored.model, createdAt: new Date(stored.createdAt).toISOString(), ...stored.record };
}

/** At least one entry past what the page still needs (it tells whether another page follows). */
function sliceSize(needed: number, filtered: boolean, read: number): number {
  return Math.min(filtered ? Math.max(needed + 1, FILTERED_SLICE) : needed + 1, MAX_ENTRIES_READ - read);
}

export interface ListRequest {
  keyId: string;
  status?: JobState;
  limit: number;
  after: IndexPosition | null;
}

/** One page of a key's requests, newest first: reads index slices and their records until it is full. */
export class RequestListing {
  constructor(
    private readonly index: RequestIndex,
    private readonly statuses: StatusStore,
  ) {}

  async page({ keyId, status, limit, after }: ListRequest): Promise<RequestsListPage> {
    const data: RequestListItem[] = [];
    const expired: string[] = [];
    let place = after;
    let read = 0;
    let more = true;
    while (more && data.length < limit && read < MAX_ENTRIES_READ) {
      const slice = await this.index.after(keyId, place, sliceSize(limit - data.length, status !== undefined, read));
      const records = await Promise.all(slice.entries.map(({ id }) => this.statuses.get(id)));
      more = !slice.exhausted;
      for (const [i, entry] of slice.entries.entries()) {
        if (data.length === limit) {
          more = true;
          break;
        }
        place = entry;
        read++;
        const stored = ownedBy(records[i] ?? null, keyId);
        if (!stored) expired.push(entry.id);
        else if (status === undefined || stored.record.status === status) data.push(toListItem(entry.id, stored));
      }
    }
    await this.index.forget(keyId, expired);
    return { data, nextCursor: more && place !== null ? encodeCursor(place) : null };
  }
}

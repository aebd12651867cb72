import type { StatusStore, StoredStatus } from "@chorus/platform/scheduler";
import type { Response } from "express";
import type { FinalStatusWaits } from "../services/final-status-waits.js";

/**
 * For `Prefer: wait=N`: the record once it is final, or as it stands after N seconds (or when the
 * client has gone). The wait is registered and subscribed before the record is read, so a record
 * finalized in between is seen by that read; null when the record is gone (expired).
 */
export async function finalOrLatest(
  statuses: StatusStore,
  waits: FinalStatusWaits,
  id: string,
  seconds: number,
  res: Response,
): Promise<StoredStatus | null> {
  const clientGone = new AbortController();
  const onClose = () => clientGone.abort();
  res.on("close", onClose);
  if (res.closed || res.destroyed) clientGone.abort(); // it left before the wait began
  try {
    const wait = waits.listen(id, seconds * 1000, clientGone.signal);
    await wait.subscribed;
    const now = await statuses.get(id);
    if (now?.record.status !== "processing") return now;
    await wait.finished;
    return await statuses.get(id);
  } finally {
    clientGone.abort(); // ends the wait if the read above failed
    res.off("close", onClose);
  }
}

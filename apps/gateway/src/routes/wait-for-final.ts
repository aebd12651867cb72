import type { StatusStore, StoredStatus } from "@chorus/platform";
import type { Response } from "express";
import type { FinalStatusWaits } from "../services/final-status-waits.js";

/**
 * For `Prefer: wait=N`: the record once it is final, or as it stands after N seconds (or when the
 * client has gone). Listens before it reads, so a record finalized in between is not missed; null
 * when the record is gone (expired).
 */
export async function finalOrLatest(statuses: StatusStore, waits: FinalStatusWaits, id: string, seconds: number, res: Response): Promise<StoredStatus | null> {
  const clientGone = new AbortController();
  const onClose = () => clientGone.abort();
  res.on("close", onClose);
  try {
    const { finished } = await waits.listen(id, seconds * 1000, clientGone.signal);
    const now = await statuses.get(id);
    if (now?.record.status !== "processing") return now;
    await finished;
    return await statuses.get(id);
  } finally {
    res.off("close", onClose);
  }
}

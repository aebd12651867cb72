import { ApiError } from "../errors.js";
import { isRequestId, REQUEST_ID_SHAPE } from "../request-id.js";
import { compileQueryValidator } from "../validation/validator.js";

export const BATCH_STATUS_MAX_IDS = 100;

const IDS_TYPE = `string (1 to ${BATCH_STATUS_MAX_IDS} comma-separated request ids)`;

/** The query of GET /api/v2/status?ids=a,b,c. */
export const batchStatusQuerySchema = {
  type: "object",
  required: ["ids"],
  properties: {
    ids: { type: "string", minLength: 1, description: `${IDS_TYPE}; each ${REQUEST_ID_SHAPE}` },
  },
  additionalProperties: false,
} as const;

const validate = compileQueryValidator<{ ids: string }>(batchStatusQuerySchema);

function invalidIds(message: string): ApiError {
  return ApiError.invalidParameter("ids", IDS_TYPE, message);
}

/** The distinct ids asked for, in the order first asked; anything else is 400 INVALID_PARAMETER naming `ids`. */
export function validateBatchStatusQuery(query: Record<string, unknown>): string[] {
  const listed = validate({ ...query }).ids.split(",");
  const malformed = listed.findIndex((id) => !isRequestId(id));
  if (malformed !== -1) {
    throw invalidIds(
      `ids must be request ids separated by commas; item ${malformed + 1} ('${(listed[malformed] ?? "").slice(0, 64)}') is not one (${REQUEST_ID_SHAPE})`,
    );
  }
  const ids = [...new Set(listed)];
  if (ids.length > BATCH_STATUS_MAX_IDS)
    throw invalidIds(`ids must name at most ${BATCH_STATUS_MAX_IDS} distinct requests (got ${ids.length})`);
  return ids;
}

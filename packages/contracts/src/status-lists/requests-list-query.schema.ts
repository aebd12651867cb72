import { JOB_STATES, type JobState } from "../status-record.js";
import { compileQueryValidator } from "../validation/validator.js";

export const REQUESTS_LIST_DEFAULT_LIMIT = 20;
export const REQUESTS_LIST_MAX_LIMIT = 100;

/** The query of GET /api/v2/requests. */
export const requestsListQuerySchema = {
  type: "object",
  properties: {
    status: { type: "string", enum: JOB_STATES, description: "only requests in this state" },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: REQUESTS_LIST_MAX_LIMIT,
      default: REQUESTS_LIST_DEFAULT_LIMIT,
      description: "requests per page at most",
    },
    cursor: {
      type: "string",
      minLength: 1,
      maxLength: 200,
      description: "the nextCursor of the previous page (opaque)",
    },
  },
  additionalProperties: false,
} as const;

export interface RequestsListQuery {
  status?: JobState;
  limit: number;
  cursor?: string;
}

const validate = compileQueryValidator<RequestsListQuery>(requestsListQuerySchema);

/** The query with `limit` filled in; a bad or unknown parameter is 400 INVALID_PARAMETER naming it. */
export function validateRequestsListQuery(query: Record<string, unknown>): RequestsListQuery {
  return validate({ ...query });
}

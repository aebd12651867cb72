export { responseCreateSchema } from "./responses-request.schema.js";
export {
  mapResponseCreateRequest,
  type MappedResponseRequest,
  type ResponseCreateRequest,
  type ResponseEcho,
} from "./map-responses-request.js";
export {
  functionCallItem,
  functionCallItemId,
  outputMessage,
  outputMessageId,
  outputText,
  requestIdOfResponse,
  responseId,
  responseObjectOf,
  responseStatusOf,
  type ResponseIdentity,
  type ResponseObject,
  type ResponseStatus,
} from "./response-object.js";

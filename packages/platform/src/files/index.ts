export type { FileListQuery, FileStore, StoredFile } from "./file-store.js";
export { RedisFileStore } from "./redis-file-store.js";

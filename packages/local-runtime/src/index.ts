export * from "./app-command.js";
export * from "./child-process.js";
export * from "./ports.js";
export * from "./redis-server.js";

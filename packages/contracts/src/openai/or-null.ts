/** OpenAI sends `null` for "not set" as readily as leaving a field out: every optional field takes it. */
export const orNull = <T extends { type: string }>(schema: T) =>
  ({ ...schema, type: [schema.type, "null"] }) as Omit<T, "type"> & { type: [T["type"], "null"] };

/** Per-minute request budgets of one API key, per operation (text is per model). */
export interface OperationLimits {
  text: number;
  tts: number;
  status: number;
}

export const LIMITED_OPERATIONS = ["text", "tts", "status"] as const satisfies readonly (keyof OperationLimits)[];

/** The spec's limits (requests per minute). */
export const DEFAULT_LIMITS: OperationLimits = { text: 100, tts: 60, status: 200 };

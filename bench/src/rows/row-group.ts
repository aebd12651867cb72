import type { BenchOptions } from "../options.js";
import type { BenchRow } from "../report/bench-row.js";
import type { BenchStack } from "../stack/bench-stack.js";

export interface BenchContext {
  stack: BenchStack;
  options: BenchOptions;
  /** Progress lines (stderr), so stdout carries only the table. */
  log: (line: string) => void;
}

/**
 * A group of rows measured together (one module each). To add rows, write a group and list it in
 * main.ts; the table and the JSON file take any number of rows.
 */
export interface RowGroup {
  name: string;
  run(ctx: BenchContext): Promise<BenchRow[]>;
}

export { addFigures, JOB_ENDS, zeroFigures, type JobAmounts, type JobEnd, type UsageFigures } from "./usage-figures.js";
export {
  METERED_MARKER_SECONDS,
  USAGE_KEEP_DAYS,
  USAGE_KEEP_SECONDS,
  UsageMeter,
  utcDay,
  type FinishedJob,
  type RidesWithMetering,
} from "./usage-meter.js";
export { UsageReader, type UsageBucket, type UsageReport } from "./usage-reader.js";

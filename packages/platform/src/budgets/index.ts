export { nextUtcDay, nextUtcMonth, utcDayOf, utcMonthOf } from "./budget-periods.js";
export {
  UsageBudgetLedger,
  type BudgetAsk,
  type BudgetRefusal,
  type PeriodFigures,
  type Reservation,
  type Settlement,
} from "./usage-budget-ledger.js";

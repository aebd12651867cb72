import type {
  Message as ContractMessage,
  StatusRecord as ContractRecord,
  RequestListItem as ContractListItem,
  Voice as ContractVoice,
} from "@chorus/contracts";
import type { Message, RequestListItem, StatusRecord, Voice } from "./types.js";

// The client writes the API's shapes again (it cannot depend on the private contracts package):
// these assignments fail to compile (tsc -p tsconfig.tests.json, in npm run lint) when they drift.
// Exact equality (a field one side lacks, or optional on one side only, makes them differ).
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const checks: [
  Same<StatusRecord, ContractRecord>,
  Same<Message, ContractMessage>,
  Same<RequestListItem, ContractListItem>,
  ContractVoice extends Voice ? true : false,
] = [true, true, true, true];

describe("the client's types", () => {
  it("when compiled, then they match the service's contracts (the check is the compile)", () => {
    expect(checks).toEqual([true, true, true, true]);
  });
});

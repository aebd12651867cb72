/**
 * The engine's slots of one worker, shared by the jobs it takes from the shared text queue and from
 * its own hand-over queue (two BullMQ Workers, each as wide as the slots): at most `slots` jobs
 * generate at once, the rest wait here in the order they came, except a job that has already waited
 * its turn elsewhere (a routed job taken back from a busy worker), which goes to the head of the line.
 * `onChange` is told how many hand-over jobs hold or wait for a slot, so the shared queue's Worker can
 * take fewer jobs meanwhile.
 */
export interface SlotGateEntry {
  /** A job from the hand-over queue (counted for `onHandoversChange`). */
  handover?: boolean;
  /** Waits at the head of the line: it has waited ROUTE_MAX_WAIT_MS for another worker already. */
  first?: boolean;
}

export class SlotGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private handovers = 0;

  constructor(
    readonly slots: number,
    private readonly onHandoversChange: (handovers: number) => void = () => undefined,
  ) {}

  /** Runs `work` in a slot. */
  async run<T>(work: () => Promise<T>, { handover = false, first = false }: SlotGateEntry = {}): Promise<T> {
    if (handover) this.countHandovers(1);
    try {
      await this.acquire(first);
      try {
        return await work();
      } finally {
        this.release();
      }
    } finally {
      if (handover) this.countHandovers(-1);
    }
  }

  /** Slots free now (nothing waits while one is free). */
  get free(): number {
    return this.slots - this.running;
  }

  private acquire(first: boolean): Promise<void> {
    if (this.running < this.slots) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => (first ? this.waiting.unshift(resolve) : this.waiting.push(resolve)));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  private countHandovers(delta: number): void {
    this.handovers += delta;
    this.onHandoversChange(this.handovers);
  }
}

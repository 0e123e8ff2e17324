// At most EXPORT_CONCURRENCY exports at once in this process (design.md §7, Exports): each
// holds a read connection and a snapshot for as long as its client reads, so their number
// is bounded rather than queued; one more is answered 429 at once.
export interface ExportSlots {
  readonly limit: number;
  /** Exports running now. */
  readonly running: number;
  /** A slot, as the function that gives it back (once, however often called); undefined when none is free. */
  take(): (() => void) | undefined;
}

export function exportSlots(limit: number): ExportSlots {
  let running = 0;
  return {
    limit,
    get running() {
      return running;
    },
    take() {
      if (running >= limit) return undefined;
      running++;
      let held = true;
      return () => {
        if (held) running--;
        held = false;
      };
    },
  };
}

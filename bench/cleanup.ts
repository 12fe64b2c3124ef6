// What has to be undone, newest first: child processes, temporary folders, databases.

export class Cleanup {
  private readonly steps: { label: string; run: () => Promise<void> | void }[] = [];
  /** Unwinds run one after another, so that a signal's unwind waits for one already under way. */
  private queue: Promise<unknown> = Promise.resolve();

  defer(label: string, run: () => Promise<void> | void): void {
    this.steps.push({ label, run });
  }

  /** The current depth, to undo only what a later part of the run adds. */
  mark(): number {
    return this.steps.length;
  }

  /** Undoes every step above `mark`, newest first; a failed step is reported and the rest still run. */
  unwindTo(mark: number, log: (line: string) => void): Promise<boolean> {
    const run = this.queue.then(() => this.unwind(mark, log));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async unwind(mark: number, log: (line: string) => void): Promise<boolean> {
    let ok = true;
    while (this.steps.length > mark) {
      const step = this.steps.pop();
      if (!step) break;
      try {
        await step.run();
      } catch (error) {
        ok = false;
        log(`cleanup: could not ${step.label}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return ok;
  }
}

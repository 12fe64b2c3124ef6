// A job that runs `tick` every interval until stopped; a failing tick is logged and retried.
import { isDatabaseOutage } from "../core/errors.ts";

/** A job's log: a line, at `warn` when something goes unwatched or undone while it lasts (else info). */
export type LineLog = (line: string, level?: "warn") => void;

export abstract class Ticker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    protected readonly log: LineLog,
  ) {}

  abstract tick(): Promise<unknown>;

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Waits for the tick under way, then stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.tick().then(
        () => {},
        (error: unknown) => {
          if (!isDatabaseOutage(error)) this.log(`${this.name}: ${(error as Error).message}; trying again in ${this.intervalMs} ms`);
        },
      );
      void this.running.finally(() => {
        if (!this.stopped) this.schedule(this.intervalMs);
      });
    }, delayMs);
    this.timer.unref?.();
  }
}

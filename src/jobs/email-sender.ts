// The e-mail job (issue 44): each tick, the follower's pass (messages derived from new events and
// part-paid transactions) and the sender's (due messages sent, retried or failed). Both are the core's
// (src/core/email/); state lives in the database, so several instances may run it at once.
import type { Email } from "../core/facades/email.ts";
import { type LineLog, Ticker } from "./ticker.ts";

export class EmailSender extends Ticker {
  constructor(
    private readonly email: Email,
    intervalMs: number,
    log: LineLog = () => {},
  ) {
    super("e-mail", intervalMs, log);
  }

  async tick(): Promise<void> {
    await this.email.follow();
    // A full batch may leave more due: send on until a pass finds less.
    for (;;) {
      const counts = await this.email.deliver();
      if (counts.failed > 0) this.log(`e-mail: ${counts.failed} message(s) failed after their last attempt`, "warn");
      if (counts.sent + counts.retried + counts.failed + counts.skipped < 50) return;
    }
  }
}

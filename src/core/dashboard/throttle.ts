// Sign-in throttling on the rate limiter's counters (src/core/rate-limits.ts: the same table, fixed
// windows, one statement per check) with two buckets of their own: sign-in attempts per client
// address, and failed sign-ins per e-mail. A password guesser is slowed on one account from many
// addresses and on many accounts from one address; a throttled attempt is refused (429 with
// Retry-After) before its password is checked, so it learns nothing.
import { createHash } from "node:crypto";
import { RetryLaterError } from "../errors.ts";
import { addressBucket, per, retryAfterSeconds, usageOf, windowOf, type RateLimit, type RateLimitCounters } from "../rate-limits.ts";
import type { Clock } from "../ports.ts";

export interface SignInLimits {
  /** Sign-in attempts (any outcome) per client address. Null: not limited. */
  perAddress: RateLimit | null;
  /** Failed sign-ins per e-mail, whatever the address. Null: not limited. */
  perEmail: RateLimit | null;
}

/** 30 attempts per address and 10 failures per e-mail in each 15 minutes. */
export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  perAddress: { limit: 30, windowMs: 15 * 60_000 },
  perEmail: { limit: 10, windowMs: 15 * 60_000 },
};

const addressKey = (address: string) => `signin:addr:${addressBucket(address)}`;
/** A digest, so the counters table holds no e-mail addresses. */
const emailKey = (email: string) => `signin:email:${createHash("sha256").update(`paygate sign-in\0${email}`, "utf8").digest("hex").slice(0, 32)}`;

export class SignInThrottle {
  constructor(
    private readonly counters: RateLimitCounters,
    private readonly limits: SignInLimits,
    private readonly clock: Clock,
  ) {}

  /** Counts the attempt against its address and refuses it (429) when the address or the e-mail is over its limit. */
  async admit(email: string, clientAddress: string): Promise<void> {
    const { perAddress, perEmail } = this.limits;
    if (!perAddress && !perEmail) return;
    const now = this.clock.now().getTime();
    const hit = perAddress && windowOf(addressKey(clientAddress), perAddress, now);
    const read = perEmail && windowOf(emailKey(email), perEmail, now);
    const counted = await this.counters.count(hit, read);
    if (perEmail && counted.read >= perEmail.limit) {
      const usage = usageOf(perEmail, counted.read, read, now);
      throw new RetryLaterError(
        `Too many failed sign-ins for this e-mail (${perEmail.limit} ${per(perEmail.windowMs)}); retry after ${retryAfterSeconds(usage)} s`,
        "sign_in_throttled",
        retryAfterSeconds(usage),
      );
    }
    if (perAddress && counted.hits > perAddress.limit) {
      const usage = usageOf(perAddress, counted.hits, hit, now);
      throw new RetryLaterError(
        `Too many sign-in attempts from this address (${perAddress.limit} ${per(perAddress.windowMs)}); retry after ${retryAfterSeconds(usage)} s`,
        "sign_in_throttled",
        retryAfterSeconds(usage),
      );
    }
  }

  /** Counts a failed sign-in against its e-mail. */
  async failed(email: string): Promise<void> {
    const { perEmail } = this.limits;
    if (!perEmail) return;
    await this.counters.count(windowOf(emailKey(email), perEmail, this.clock.now().getTime()), null);
  }
}

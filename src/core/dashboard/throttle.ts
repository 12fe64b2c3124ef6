// Sign-in throttling on the rate limiter's counters (src/core/rate-limits.ts: the same table, fixed
// windows, one statement per check) with two buckets of their own: sign-in attempts per client
// address, and sign-in attempts per e-mail. A password guesser is slowed on one account from many
// addresses and on many accounts from one address; a throttled attempt is refused (429 with
// Retry-After) before its password is checked, so it learns nothing.
//
// An attempt counts against its e-mail when it is let in, in the statement that counts its address
// (and only when the address let it in, so an address over its limit cannot use up other people's
// e-mails): however many attempts arrive at once, at most the e-mail's limit of passwords are
// checked in a window. A sign-in that succeeds gives its count back, so the e-mail's counter holds
// its failures and the attempts under way, and signing in often never locks anyone out.
import { createHash } from "node:crypto";
import { RetryLaterError } from "../errors.ts";
import {
  addressBucket,
  per,
  retryAfterSeconds,
  usageOf,
  windowOf,
  type CounterWindow,
  type RateLimit,
  type RateLimitCounters,
} from "../rate-limits.ts";
import type { Clock } from "../ports.ts";

export interface SignInLimits {
  /** Sign-in attempts (any outcome) per client address. Null: not limited. */
  perAddress: RateLimit | null;
  /** Sign-in attempts per e-mail that did not succeed (failed, or under way), whatever the address. Null: not limited. */
  perEmail: RateLimit | null;
}

/** 30 attempts per address and 10 failed (or unfinished) attempts per e-mail in each 15 minutes. */
export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  perAddress: { limit: 30, windowMs: 15 * 60_000 },
  perEmail: { limit: 10, windowMs: 15 * 60_000 },
};

/** An attempt let in: the e-mail's counter it was counted in, to give back if it signs in. */
export interface SignInAdmission {
  emailWindow: CounterWindow | null;
}

const addressKey = (address: string) => `signin:addr:${addressBucket(address)}`;
/** A digest, so the counters table holds no e-mail addresses. */
const emailKey = (email: string) => `signin:email:${createHash("sha256").update(`paygate sign-in\0${email}`, "utf8").digest("hex").slice(0, 32)}`;

export class SignInThrottle {
  constructor(
    private readonly counters: RateLimitCounters,
    private readonly limits: SignInLimits,
    private readonly clock: Clock,
  ) {}

  /**
   * Counts the attempt against its address and, when the address lets it in, its e-mail; refuses it
   * (429) when either is over its limit. A successful sign-in hands the answer to `succeeded`.
   */
  async admit(email: string, clientAddress: string): Promise<SignInAdmission> {
    const { perAddress, perEmail } = this.limits;
    const now = this.clock.now().getTime();
    const address = perAddress && windowOf(addressKey(clientAddress), perAddress, now);
    const account = perEmail && windowOf(emailKey(email), perEmail, now);
    let addressHits = 0;
    let emailHits = 0;
    if (address && perAddress) {
      const counted = await this.counters.count(address, null, account && { window: account, ifHitsAtMost: perAddress.limit });
      addressHits = counted.hits;
      emailHits = counted.next ?? 0;
    } else if (account) {
      emailHits = (await this.counters.count(account, null)).hits;
    }
    if (perAddress && addressHits > perAddress.limit) {
      const usage = usageOf(perAddress, addressHits, address, now);
      throw new RetryLaterError(
        `Too many sign-in attempts from this address (${perAddress.limit} ${per(perAddress.windowMs)}); retry after ${retryAfterSeconds(usage)} s`,
        "sign_in_throttled",
        retryAfterSeconds(usage),
      );
    }
    if (perEmail && emailHits > perEmail.limit) {
      const usage = usageOf(perEmail, emailHits, account, now);
      throw new RetryLaterError(
        `Too many failed sign-ins for this e-mail (${perEmail.limit} ${per(perEmail.windowMs)}); retry after ${retryAfterSeconds(usage)} s`,
        "sign_in_throttled",
        retryAfterSeconds(usage),
      );
    }
    return { emailWindow: account };
  }

  /** The attempt signed in: its e-mail's count is given back (a failure keeps it). */
  async succeeded(admission: SignInAdmission): Promise<void> {
    if (admission.emailWindow) await this.counters.giveBack(admission.emailWindow);
  }
}

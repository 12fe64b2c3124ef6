// Know-your-business: the statuses a merchant's verification can have, and what each says to a live
// request. Live payments open only once it is VERIFIED; test mode needs none.
import type { StoredKybStatus } from "./rows.ts";

export const KYB_STATUSES = ["NONE", "PENDING", "VERIFIED", "REJECTED"] as const satisfies readonly StoredKybStatus[];
export type KybStatus = (typeof KYB_STATUSES)[number];

export const KYB_REFUSALS = {
  NONE: "Business verification (KYB) is required before accepting live payments; complete it in the dashboard or use your test keys",
  PENDING: "Business verification (KYB) is under review; live payments open once it is approved. Use your test keys meanwhile",
  REJECTED: "Business verification (KYB) was rejected; live payments are unavailable until it is resubmitted and approved",
} as const satisfies Record<Exclude<KybStatus, "VERIFIED">, string>;

export function isKybStatus(value: string): value is KybStatus {
  return (KYB_STATUSES as readonly string[]).includes(value);
}

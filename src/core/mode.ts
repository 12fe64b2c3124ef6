// Test or live: every dashboard setting is made for one mode. Callers may hand in what a form sent,
// so each operation checks it once here and names the field it came from.
import { errors } from "./errors.ts";

export const MODES = ["test", "live"] as const;
export type Mode = (typeof MODES)[number];

export function checkedMode(value: string, field = "mode"): Mode {
  if (value === "test" || value === "live") return value;
  throw errors.invalidMerchantSettings(`${field} must be test or live (got '${value}')`);
}

export const modeOf = (isLive: boolean): Mode => (isLive ? "live" : "test");

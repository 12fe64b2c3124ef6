// How amounts and times read on the page. Amounts stay decimal strings end to end: Intl formats
// a numeric string exactly (no float on the way), and crypto amounts are shown as the API gives them.

export function fiat(amount: string, currency: string): string {
  try {
    return new Intl.NumberFormat(navigator.language || "en-US", { style: "currency", currency }).format(amount as Intl.StringNumericLiteral);
  } catch {
    return `${amount} ${currency}`;
  }
}

export function crypto(amount: string, slug: string): string {
  return `${amount} ${slug}`;
}

/** 29:05, or 1:02:03 past an hour. */
export function clock(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const mm = hours > 0 ? String(minutes).padStart(2, "0") : String(minutes);
  return `${hours > 0 ? `${hours}:` : ""}${mm}:${String(seconds).padStart(2, "0")}`;
}

/**
 * What the countdown tells a screen reader, and only when it changes: every 5 minutes, then each
 * minute of the last five (a live region read out every second would drown everything else).
 */
export function spokenTimeLeft(ms: number): string {
  if (ms <= 0) return "The time to pay has run out.";
  const minutes = Math.ceil(ms / 60_000);
  if (minutes <= 1) return "Less than a minute left to pay.";
  if (minutes <= 5) return `${minutes} minutes left to pay.`;
  const rounded = Math.ceil(minutes / 5) * 5;
  return rounded >= 60 ? `About ${Math.round(rounded / 60)} hour${rounded >= 90 ? "s" : ""} left to pay.` : `About ${rounded} minutes left to pay.`;
}

// The providers behind a locked quote, as stored with the transaction (transactions.quote_sources,
// JSON) and as every API shows them. Written once at initiate; read back defensively, since a row
// is data and a damaged one must not break the view.
import type { RateSource } from "../ports.ts";
import type { StoredRateSource } from "../records/transactions.ts";

export function storedRateSources(sources: readonly RateSource[] | null | undefined): StoredRateSource[] | null {
  if (!sources || sources.length === 0) return null;
  return sources.map((s) => ({
    provider: s.provider,
    rate: s.rate,
    quotedAt: s.quotedAt?.toISOString() ?? null,
    used: s.used,
    reason: s.reason,
    detail: s.detail,
  }));
}

/** The stored column read back; null when absent or not the shape written. */
export function rateSourcesOf(stored: unknown): StoredRateSource[] | null {
  if (!Array.isArray(stored)) return null;
  const out: StoredRateSource[] = [];
  for (const item of stored) {
    if (typeof item !== "object" || item === null) return null;
    const s = item as Record<string, unknown>;
    if (typeof s.provider !== "string" || typeof s.used !== "boolean") return null;
    out.push({
      provider: s.provider,
      rate: typeof s.rate === "string" ? s.rate : null,
      quotedAt: typeof s.quotedAt === "string" ? s.quotedAt : null,
      used: s.used,
      reason: typeof s.reason === "string" ? s.reason : null,
      detail: typeof s.detail === "string" ? s.detail : null,
    });
  }
  return out;
}

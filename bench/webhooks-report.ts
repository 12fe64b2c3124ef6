// The results of bench/webhooks.ts: one row per scenario, as a markdown table and as JSON.

export interface Row {
  dispatchers: number;
  pollMs: number;
  scenario: "throughput" | "delay";
  events: number;
  delivered: number;
  /** From the first delivery to the last. */
  eventsPerSecond: number | null;
  /** Commit to delivery; null for throughput, where every event was committed before the workers started. */
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  /** Deliveries of a webhook-id that had already arrived. */
  duplicates: number;
}

/** Nearest-rank percentile of ascending values; null when there are none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? null;
}

export function formatTable(rows: Row[]): string {
  const titles = ["dispatchers", "poll ms", "scenario", "events", "events/s", "p50 ms", "p99 ms", "max ms", "duplicates"];
  const text = (v: number | null) => (v === null ? "–" : String(v));
  const cells = rows.map((r) => [
    String(r.dispatchers),
    String(r.pollMs),
    r.scenario,
    String(r.events),
    r.eventsPerSecond?.toFixed(1) ?? "–",
    text(r.p50Ms),
    text(r.p99Ms),
    text(r.maxMs),
    String(r.duplicates),
  ]);
  const widths = titles.map((t, i) => Math.max(t.length, ...cells.map((c) => (c[i] ?? "").length)));
  const line = (values: string[]) => `| ${values.map((v, i) => (i === 2 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 2 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(titles), rule, ...cells.map(line)].join("\n");
}

// Schedules the flush job's passes (src/core/settlement/flush-pass.ts: sending flushes read back from
// the chain, merchants past the thresholds flushed, fee payers' balances), says what failed and which
// fee payer is too low, and reports the balances to /metrics.
import type { FlushPassReport, FlushThresholds } from "../core/settlement/flush-pass.ts";
import type { FeePayerMetrics } from "../observability/hooks.ts";
import { type LineLog, Ticker } from "./ticker.ts";

export interface FlushPasses {
  flushPass(thresholds: FlushThresholds): Promise<FlushPassReport>;
}

export class ForwarderFlusher extends Ticker {
  constructor(
    private readonly settlement: FlushPasses,
    private readonly thresholds: FlushThresholds,
    intervalMs: number,
    log: LineLog = () => {},
    private readonly metrics?: FeePayerMetrics,
  ) {
    super("flush job", intervalMs, log);
  }

  async tick(): Promise<FlushPassReport> {
    const report = await this.settlement.flushPass(this.thresholds);
    if (report.reorganized > 0)
      this.log(`flush job: ${report.reorganized} confirmed flush(es) left the chain in a reorganisation; sent again`, "warn");
    for (const failure of report.failures) this.log(`flush job: ${failure}; trying again next pass`, "warn");
    for (const payer of report.feePayers) {
      const mode = payer.isLive ? "live" : "test";
      this.metrics?.feePayerObserved(payer.network, mode, payer.balance, payer.low);
      if (payer.low) this.log(`flush job: the ${payer.network} ${mode} fee payer ${payer.address} is too low (${payer.balance}); top it up`, "warn");
    }
    return report;
  }
}

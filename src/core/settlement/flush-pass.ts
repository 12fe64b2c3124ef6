// The flush job's pass (issue 40; docs/settlement.md, Flushes): first the confirmed flushes not final
// yet, read again (one a reorganisation took away goes back to sending), then the flushes still sending (the
// same signed transaction again, then the chain's receipt: never a second one for the same
// forwarders), then a flush for each merchant, network and mode whose settled forwarders passed its
// flush rule or the operator's thresholds, and the fee payers' balances for /metrics.
import { CHAINS, isNetworkSlug, type NetworkSlug } from "../networks.ts";
import { type FlushThresholds, isFlushDue } from "./flush-rules.ts";
import { flushNetwork, type ForwarderDeps, recheckFlush, resumeFlush } from "./forwarders.ts";

export type { FlushThresholds } from "./flush-rules.ts";

export interface FeePayerReading {
  network: string;
  isLive: boolean;
  address: string;
  /** In the coin, exact. */
  balance: string;
  low: boolean;
}

export interface FlushPassReport {
  resumed: number;
  flushed: number;
  /** Confirmed flushes whose block a reorganisation took away: sending again. */
  reorganized: number;
  failures: string[];
  feePayers: FeePayerReading[];
}

/** Flushes still sending that one pass reads again. */
const SENDING_BATCH = 50;

export async function flushPass(deps: ForwarderDeps, thresholds: FlushThresholds): Promise<FlushPassReport> {
  const report: FlushPassReport = { resumed: 0, flushed: 0, reorganized: 0, failures: [], feePayers: [] };
  if (deps.forwarderRails === undefined) return report;
  // First the confirmed flushes not final yet: one a reorganisation took away is sending again, finished below.
  for (const flush of await deps.stores.forwarders.confirmedNotFinal(SENDING_BATCH)) {
    try {
      if ((await recheckFlush(deps, flush)).state === "sending") report.reorganized++;
    } catch (error) {
      report.failures.push(`${flush.id} (${flush.txHash}), reading its block again: ${(error as Error).message}`);
    }
  }
  for (const flush of await deps.stores.forwarders.sending(SENDING_BATCH)) {
    try {
      if ((await resumeFlush(deps, flush)).state !== "sending") report.resumed++;
    } catch (error) {
      report.failures.push(`${flush.id} (${flush.txHash}): ${(error as Error).message}`);
    }
  }
  const now = deps.clock.now();
  for (const due of await deps.stores.forwarders.backlog()) {
    if (!isFlushDue(due, thresholds, now)) continue;
    if (!isNetworkSlug(due.network)) continue;
    try {
      await flushNetwork(deps, { merchantId: due.merchantId, isLive: due.isLive, by: null }, due.network, 0);
      report.flushed++;
    } catch (error) {
      report.failures.push(`merchant ${due.merchantId} on ${due.network} (${due.isLive ? "live" : "test"}): ${(error as Error).message}`);
    }
  }
  for (const isLive of [false, true]) {
    for (const state of await feePayerStates(deps, isLive)) {
      if (state.reading !== null) report.feePayers.push(state.reading);
      if (state.problem !== null) report.failures.push(`the ${state.network} ${isLive ? "live" : "test"} fee payer's balance: ${state.problem}`);
    }
  }
  return report;
}

/** A network's fee payer in one mode: its reading, or why there is none (null: not configured). */
export interface FeePayerState {
  network: NetworkSlug;
  reading: FeePayerReading | null;
  /** What the node answered instead of a balance. */
  problem: string | null;
}

/** The fee payers of every EVM network in a mode, read from the nodes: the flush job's gauges and the dashboard's. */
export async function feePayerStates(deps: ForwarderDeps, isLive: boolean): Promise<FeePayerState[]> {
  const rails = deps.forwarderRails;
  if (rails === undefined) return [];
  const evm = (Object.keys(CHAINS) as NetworkSlug[]).filter((n) => CHAINS[n].family === "evm");
  return Promise.all(
    evm.map(async (network): Promise<FeePayerState> => {
      try {
        const held = await rails.feePayerBalance(network, isLive);
        return { network, reading: held === null ? null : { network, isLive, ...held }, problem: null };
      } catch (error) {
        return { network, reading: null, problem: (error as Error).message };
      }
    }),
  );
}

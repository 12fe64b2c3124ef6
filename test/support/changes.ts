// Hearing the database's change notifications in a test, as the service hears them.
import type { TransactionChange } from "../../src/core/stores/transaction-changes.ts";
import type { TestGateway } from "./gateway.ts";

/** Resolves once `check` holds; fails after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("not in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Starts hearing the gateway's changes and resolves once it listens (its first resync); `stop` ends it. */
export async function hearChanges(t: TestGateway): Promise<{ heard: TransactionChange[]; stop: () => void }> {
  const heard: TransactionChange[] = [];
  const stop = t.changes.subscribe((change) => heard.push(change));
  await until(() => heard.some((c) => c.kind === "resync"));
  return { heard, stop };
}

/** Whether a change of the transaction that wrote an event was heard. */
export const heardEvent = (heard: readonly TransactionChange[], transactionId: string) =>
  heard.some((c) => c.kind === "changed" && c.transactionId === transactionId && c.eventWritten);

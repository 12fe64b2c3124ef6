// Live updates of one transaction: the transactionUpdated subscription over Server-Sent Events
// (graphql-sse at /graphql/stream, the client secret as Bearer), which first sends the current
// state and then every change. Should the stream fail (a proxy that buffers event streams, an
// older service), the page falls back to asking for the transaction every few seconds.
import { createClient } from "graphql-sse";
import { TRANSACTION_UPDATED, type CheckoutApi, type Transaction } from "./api.ts";

export const POLL_MS = 4_000;
/** While the stream is up, still ask now and then: a proxy may hold a stream open yet deliver nothing. */
export const SAFETY_POLL_MS = 30_000;

export interface LiveUpdates {
  stop(): void;
  /** Ask now (after the countdown ran out, when the tab comes back). */
  refresh(): void;
}

export function followTransaction(api: CheckoutApi, onUpdate: (transaction: Transaction) => void, onError: (error: unknown) => void): LiveUpdates {
  let stopped = false;
  let pollTimer: number | undefined;
  const safetyTimer = window.setInterval(() => {
    if (!polling) refresh();
  }, SAFETY_POLL_MS);
  let polling = false;

  const refresh = () => {
    if (stopped) return;
    api.transaction().then(
      (transaction) => {
        if (!stopped && transaction) onUpdate(transaction);
      },
      (error: unknown) => {
        if (!stopped) onError(error);
      },
    );
  };
  const startPolling = () => {
    if (polling || stopped) return;
    polling = true;
    pollTimer = window.setInterval(refresh, POLL_MS);
    refresh();
  };

  const client = createClient({
    url: "/graphql/stream",
    headers: () => ({ authorization: api.client.authorization }),
    credentials: "omit",
    referrerPolicy: "no-referrer",
    retryAttempts: 2,
    retry: (retries) => new Promise((resolve) => setTimeout(resolve, 1_000 * (retries + 1))),
  });
  const dispose = client.subscribe<{ transactionUpdated: Transaction }>(
    { query: TRANSACTION_UPDATED, variables: { id: api.transactionId } },
    {
      next: (result) => {
        if (stopped) return;
        if (result.data?.transactionUpdated) onUpdate(result.data.transactionUpdated);
        else if (result.errors?.length) startPolling();
      },
      error: () => startPolling(),
      complete: () => startPolling(),
    },
  );

  const onVisible = () => {
    if (document.visibilityState === "visible") refresh();
  };
  document.addEventListener("visibilitychange", onVisible);

  return {
    stop() {
      stopped = true;
      window.clearInterval(pollTimer);
      window.clearInterval(safetyTimer);
      document.removeEventListener("visibilitychange", onVisible);
      dispose();
      client.dispose();
    },
    refresh,
  };
}

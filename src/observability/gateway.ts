// Counts initialize and initiate where REST and GraphQL both pass: the gateway the app hands to its
// controllers and resolvers. A thin wrapper in the adapter layer, so the core stays free of metrics.
import type { PaymentGateway } from "../core/gateway.ts";
import type { Payments } from "../core/facades/payments.ts";
import { cryptoById, fiatById } from "../core/money/currencies.ts";
import type { TransactionMetrics } from "./hooks.ts";

/**
 * The gateway with initialize and initiate counted on success (an idempotent replay created or
 * moved nothing, so it is not counted). Everything else is the gateway's own: the wrappers'
 * prototypes are the gateway and its payments façade.
 */
export function meteredGateway(gateway: PaymentGateway, metrics: TransactionMetrics): PaymentGateway {
  const metered = Object.create(gateway.payments) as Payments;
  metered.initializeTransaction = async (request) => {
    const outcome = await gateway.payments.initializeTransaction(request);
    if (!outcome.replayed) {
      const t = outcome.transaction;
      metrics.transactionInitialized(fiatById(t.initializedCurrencyId)?.slug ?? "unknown", t.isLive ? "live" : "test");
    }
    return outcome;
  };
  metered.initiatePayment = async (request) => {
    const outcome = await gateway.payments.initiatePayment(request);
    if (!outcome.replayed) {
      const t = outcome.transaction;
      const crypto = t.paymentCurrencyId === null ? undefined : cryptoById(t.paymentCurrencyId);
      metrics.paymentInitiated(crypto?.slug ?? "unknown", t.isLive ? "live" : "test");
    }
    return outcome;
  };
  return Object.assign(Object.create(gateway) as PaymentGateway, { payments: metered });
}

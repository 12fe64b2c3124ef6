// Resolvers map between the graph and the core; every rule stays in the core.
import type { GraphQLResolveInfo } from "graphql";
import { PaygateError } from "../core/errors.ts";
import type { CryptoCurrency } from "../core/money/currencies.ts";
import type { RefundView } from "../core/refunds/view.ts";
import { policiesView } from "../core/policies.ts";
import { tokenContractOf } from "../core/networks.ts";
import { clientSecretVisibleTo, customerVisibleTo, initiatedWithSecretKey } from "../core/transactions/retrieve.ts";
import type { TransactionUpdate } from "../core/transactions/updates.ts";
import type { TransactionDetails } from "../core/transactions/details.ts";
import type { DeliveryLogEntry, WebhookEndpointRow } from "../core/stores/webhook-endpoints.ts";
import { deliveryStatus } from "../core/webhooks/delivery-log.ts";
import type { MerchantAccess } from "../core/facades/access.ts";
import type { WebhookEndpointView } from "../core/webhooks/endpoints.ts";
import type { GraphQLContext, TransactionParent } from "./context.ts";
import { fromCore } from "./errors.ts";
import { invoiceMutations, invoiceQueries } from "./invoices.ts";
import { settlementQueries } from "./settlement.ts";
import { selectsBelow } from "./selection.ts";
import type {
  Refund,
  Resolvers,
  SubscriptionResolverObject,
  SubscriptionTransactionUpdatedArgs,
  WebhookDelivery,
  WebhookEndpoint,
} from "./generated/resolvers.ts";
import { DateTimeScalar, DecimalScalar, JSONScalar } from "./scalars.ts";

const decimal = (value: { toString(): string } | null) => (value === null ? null : value.toString());
const orUndefined = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

export const resolvers: Resolvers = {
  Decimal: DecimalScalar,
  DateTime: DateTimeScalar,
  JSON: JSONScalar,

  Query: {
    transactions: (_root, { filter, first, after }, ctx, info) =>
      fromCore(async () => {
        // The core parses REST's query values: the same checks and messages, in the graph's names.
        const params = Object.fromEntries(
          Object.entries({
            limit: first === null || first === undefined ? undefined : String(first),
            starting_after: after,
            status: filter?.status,
            currency: filter?.currency,
            payment_currency: filter?.paymentCurrency,
            "created[gte]": filter?.createdGte,
            "created[lt]": filter?.createdLt,
            q: filter?.search,
          }).filter(([, value]) => value !== null && value !== undefined),
        );
        // Each row as of its receipts' moment, the page's receipts in one query (the core's details, as REST's).
        const page = await ctx.gateway.payments.listTransactionDetails(ctx.bearerToken, params, { ...perField(info), names: GRAPH_NAMES });
        ctx.seenMerchant(page.merchantId);
        const edges = page.details.map((details) => ({
          cursor: details.transaction.id,
          node: readParent(details, { customer: true, clientSecret: true }),
        }));
        return { edges, pageInfo: { hasNextPage: page.hasMore, endCursor: edges.at(-1)?.cursor ?? null } };
      }),
    transaction: (_root, { id }, ctx, info) =>
      fromCore(async () => {
        // The row and its receipts as of one moment (the core's details, as REST's GET /v1/transaction/:id).
        const { details, caller } = await ctx.gateway.payments.transactionDetails(ctx.bearerToken, id, perField(info));
        ctx.seenMerchant(caller.merchant.id);
        return details && readParent(details, { customer: customerVisibleTo(caller), clientSecret: clientSecretVisibleTo(caller) });
      }),
    ...invoiceQueries((ctx) => merchantAccess(ctx)),
    ...settlementQueries((ctx) => merchantAccess(ctx)),
    refund: (_root, { id }, ctx) =>
      fromCore(async () => {
        try {
          const found = await ctx.gateway.refunds.retrieveRefund(await merchantAccess(ctx), id);
          ctx.seenMerchant(found.merchantId);
          return refundOf(found.refund);
        } catch (error) {
          // As transaction(id): another merchant's, mode's or an unknown refund is null.
          if (error instanceof PaygateError && error.reason === "refund_not_found") return null;
          throw error;
        }
      }),
    paymentOptions: (_root, { transactionId }, ctx) =>
      fromCore(async () => {
        const { paymentOptions: found, caller } = await ctx.gateway.payments.paymentOptions(ctx.bearerToken, transactionId);
        ctx.seenMerchant(caller.merchant.id);
        if (!found) return null;
        const { transaction: t, fiat, options } = found;
        return {
          transactionId: t.id,
          merchant: t.merchant,
          isLive: t.isLive,
          amount: t.initializedAmount.toString(),
          currency: { id: fiat.id, slug: fiat.slug, name: fiat.name },
          description: t.description,
          status: t.status,
          expiresAt: t.expiresAt?.toISOString() ?? null,
          options: options.map((o) => ({
            currency: cryptoOf(o.currency),
            network: {
              slug: o.network.slug,
              name: o.network.name,
              standard: o.network.standard,
              chainId: o.network.chainId,
              explorerTransactionUrl: ctx.gateway.payments.transactionExplorer(o.network.slug, t.isLive),
              tokenContract: o.network.contract,
              explorerContractUrl: o.network.contractUrl,
            },
            feeLevel: o.network.feeLevel,
            feeCoin: o.network.feeCoin,
            available: o.available,
            amount: o.amount,
            rate: o.rate,
            quotedAt: o.quotedAt?.toISOString() ?? null,
          })),
        };
      }),
    // Webhook endpoints: the secret key's merchant and mode, through the gateway methods REST calls.
    webhookEndpoints: (_root, _args, ctx) =>
      fromCore(async () => (await ctx.gateway.webhooks.listEndpoints(await merchantAccess(ctx))).map(webhookEndpointOf)),
    webhookEndpoint: (_root, { id }, ctx) =>
      fromCore(async () => {
        const owner = await merchantAccess(ctx);
        try {
          return webhookEndpointOf(await ctx.gateway.webhooks.retrieveEndpoint(owner, id));
        } catch (error) {
          // As refund(id): another merchant's, mode's or an unknown endpoint is null.
          if (error instanceof PaygateError && error.reason === "webhook_endpoint_not_found") return null;
          throw error;
        }
      }),
    webhookDeliveries: (_root, { endpointId, status, first, after }, ctx) =>
      fromCore(async () => {
        // REST's query values, so the core checks them with the same messages, in the graph's names.
        const params = Object.fromEntries(
          Object.entries({
            limit: first === null || first === undefined ? undefined : String(first),
            starting_after: after,
            status: status?.toLowerCase(),
          }).filter(([, value]) => value !== null && value !== undefined),
        );
        const page = await ctx.gateway.webhooks.listDeliveries(await merchantAccess(ctx), endpointId, params, DELIVERY_LIST_NAMES);
        const edges = page.deliveries.map((d) => ({ cursor: d.id, node: webhookDeliveryOf(d) }));
        return { edges, pageInfo: { hasNextPage: page.hasMore, endCursor: edges.at(-1)?.cursor ?? null } };
      }),
  },

  Mutation: {
    initializeTransaction: (_root, { input }, ctx) =>
      fromCore(async () => {
        const initialized = await ctx.gateway.payments.initializeTransaction({
          bearerToken: ctx.bearerToken,
          idempotencyKey: ctx.idempotencyKey,
          // The spec's body, so REST and GraphQL share one parser and one set of messages.
          body: {
            customer: input.customer,
            currency: input.currency,
            amount: input.amount,
            description: input.description,
            meta: input.meta,
            public_key: orUndefined(input.publicKey),
            payment_link: orUndefined(input.paymentLink),
            return_url: input.returnUrl,
            cancel_url: input.cancelUrl,
            locale: input.locale,
            expires_in: input.expiresIn,
            underpayment_tolerance: input.underpaymentTolerance,
            confirmations: input.confirmations,
            late_payment: input.latePayment ? { accept_if_rate_moved_below: input.latePayment.acceptIfRateMovedBelow } : input.latePayment,
          },
        });
        ctx.seenMerchant(initialized.transaction.merchantId);
        // Its caller made the transaction: shown its client secret, as Stripe shows a new PaymentIntent's.
        return detailedParent(initialized, { customer: false, clientSecret: true });
      }),
    initiatePayment: (_root, { transactionId, input }, ctx) =>
      fromCore(async () => {
        const initiated = await ctx.gateway.payments.initiatePayment({
          bearerToken: ctx.bearerToken,
          idempotencyKey: ctx.idempotencyKey,
          transactionId,
          body: { currency_id: input.currencyId, refund_address: input.refundAddress, network: input.network },
          // The customer's browser picks the coin with the client secret (REST's initiate takes the secret key only).
          acceptClientSecret: true,
        });
        ctx.seenMerchant(initiated.transaction.merchantId);
        // Only the secret key or this transaction's client secret get here: either may see the secret.
        return detailedParent(initiated, { customer: initiatedWithSecretKey(ctx.bearerToken), clientSecret: true });
      }),
    ...invoiceMutations((ctx) => merchantAccess(ctx)),
    createRefund: (_root, { transactionId, input }, ctx) =>
      fromCore(async () => {
        const made = await ctx.gateway.refunds.createRefund(await merchantAccess(ctx), {
          idempotencyKey: ctx.idempotencyKey,
          transactionId,
          // REST's body, so both share one parser and one set of messages.
          body: Object.fromEntries(
            Object.entries({
              amount_kind: input.amountKind?.toLowerCase(),
              amount: input.amount,
              amount_currency: input.amountCurrency,
              valuation: input.valuation?.toLowerCase(),
              fee_rate: input.feeRate,
              deduct_network_fee: input.deductNetworkFee,
            }).filter(([, value]) => value !== null && value !== undefined),
          ),
        });
        ctx.seenMerchant(made.merchantId);
        return refundOf(made.refund);
      }),
    cancelRefund: (_root, { id }, ctx) =>
      fromCore(async () => {
        const canceled = await ctx.gateway.refunds.cancelRefund(await merchantAccess(ctx), id);
        ctx.seenMerchant(canceled.merchantId);
        return refundOf(canceled.refund);
      }),
    markRefundPaid: (_root, { id, txHash }, ctx) =>
      fromCore(async () => {
        const marked = await ctx.gateway.refunds.markRefundPaid(await merchantAccess(ctx), id, { tx_hash: txHash });
        ctx.seenMerchant(marked.merchantId);
        return refundOf(marked.refund);
      }),
    // REST's bodies, so both share one parser and one set of messages (the fields in REST's names).
    createWebhookEndpoint: (_root, { input }, ctx) =>
      fromCore(async () =>
        webhookEndpointOf(
          await ctx.gateway.webhooks.createEndpoint(
            await merchantAccess(ctx),
            defined({ url: input.url, enabled_events: input.enabledEvents, description: input.description }),
          ),
        ),
      ),
    updateWebhookEndpoint: (_root, { id, input }, ctx) =>
      fromCore(async () => {
        const updated = await ctx.gateway.webhooks.updateEndpoint(
          await merchantAccess(ctx),
          id,
          // description: null clears it, as in REST; the other fields left null are left out.
          {
            ...defined({
              url: input.url,
              enabled_events: input.enabledEvents,
              disabled: input.disabled,
              redeliver_missed: input.redeliverMissed,
            }),
            ...(input.description === undefined ? {} : { description: input.description }),
          },
        );
        return { endpoint: webhookEndpointOf(updated.endpoint), redelivered: updated.redelivered };
      }),
    deleteWebhookEndpoint: (_root, { id }, ctx) =>
      fromCore(async () => {
        const deleted = await ctx.gateway.webhooks.deleteEndpoint(await merchantAccess(ctx), id);
        return { id: deleted.id, deleted: true };
      }),
    rotateWebhookEndpointSecret: (_root, { id }, ctx) =>
      fromCore(async () => webhookEndpointOf(await ctx.gateway.webhooks.rotateEndpointSecret(await merchantAccess(ctx), id))),
    redeliverWebhookDelivery: (_root, { id }, ctx) =>
      fromCore(async () => webhookDeliveryOf(await ctx.gateway.webhooks.redeliverDelivery(await merchantAccess(ctx), id))),
    redeliverFailedWebhookDeliveries: (_root, { endpointId, since }, ctx) =>
      fromCore(async () => ({
        queued: await ctx.gateway.webhooks.redeliverFailedDeliveries(await merchantAccess(ctx), endpointId, { since }),
      })),
  },

  Subscription: {
    transactionUpdated: transactionUpdated(),
  },

  Transaction: {
    id: ({ record }) => record.id,
    reference: ({ record }) => record.reference,
    status: ({ record }) => record.status,
    description: ({ record }) => record.description,
    initializedAmount: ({ record }) => record.initializedAmount.toString(),
    initializedCurrency: ({ view: { initializedCurrency: fiat } }) => ({ id: fiat.id, slug: fiat.slug, name: fiat.name }),
    paymentAmount: ({ record }) => decimal(record.paymentAmount),
    amountPaid: ({ record }) => decimal(record.amountPaid),
    amountUnconfirmed: ({ record }) => decimal(record.amountUnconfirmed),
    confirmations: ({ view }) => view.payment?.confirmations ?? null,
    requiredConfirmations: ({ view }) => view.payment?.requiredConfirmations ?? null,
    paymentState: ({ view }) => (view.payment ? (view.payment.state.toUpperCase() as Uppercase<typeof view.payment.state>) : null),
    paymentCurrency: ({ view: { paymentCurrency: crypto } }) => crypto && cryptoOf(crypto),
    paymentNetwork: ({ view, record }, _args, ctx) => {
      if (!view.paymentNetwork) return null;
      const token = view.paymentCurrency && tokenContractOf(view.paymentCurrency.slug, view.paymentNetwork.slug, record.isLive);
      return {
        ...view.paymentNetwork,
        explorerTransactionUrl: ctx.gateway.payments.transactionExplorer(view.paymentNetwork.slug, record.isLive),
        tokenContract: token ? token.contract : null,
        explorerContractUrl: token ? token.url : null,
      };
    },
    amountOwed: ({ view }) => view.amountOwed,
    paymentAddress: ({ record }) => record.paymentAddress,
    paymentUri: async (parent, _args, ctx) => (await paymentRequest(parent, ctx))?.uri ?? null,
    qrCode: async (parent, _args, ctx) => (await paymentRequest(parent, ctx))?.qrCode ?? null,
    refundAddress: ({ record }) => record.refundAddress,
    quote: ({ view: { quote } }) =>
      quote && {
        rate: quote.rate,
        marketRate: quote.marketRate,
        spreadPercent: quote.spreadPercent,
        source: quote.source,
        quotedAt: quote.quotedAt.toISOString(),
        sources: quote.sources,
      },
    isLive: ({ record }) => record.isLive,
    merchant: ({ record }) => record.merchant,
    meta: ({ record }) => record.requestMeta as Record<string, unknown>,
    createdAt: ({ record }) => record.createdAt.toISOString(),
    expiresAt: ({ record }) => record.expiresAt?.toISOString() ?? null,
    customer: ({ record, customerVisible }) => (customerVisible ? { email: record.customerEmail, name: record.customerName } : null),
    clientSecret: async (parent, _args, ctx) => (parent.clientSecretVisible ? (await checkout(parent, ctx)).clientSecret : null),
    checkoutUrl: async (parent, _args, ctx) => (parent.clientSecretVisible ? (await checkout(parent, ctx)).checkoutUrl : null),
    returnUrl: ({ record }) => record.returnUrl,
    cancelUrl: ({ record }) => record.cancelUrl,
    locale: ({ record }) => record.locale,
    policies: ({ record }) => policiesView(record),
    receipts: (parent) => parent.receipts(),
    reversedAt: ({ record }) => record.reversedAt?.toISOString() ?? null,
    // Refunds are the secret key's (the same readers as the customer): null for the others.
    refunds: async ({ record, customerVisible }, _args, ctx) =>
      customerVisible
        ? fromCore(async () => (await ctx.gateway.refunds.transactionRefunds(await merchantAccess(ctx), record.id)).refunds.map(refundOf))
        : null,
    amountRefundable: async ({ record, customerVisible }, _args, ctx) =>
      customerVisible
        ? fromCore(async () => (await ctx.gateway.refunds.transactionRefunds(await merchantAccess(ctx), record.id)).amountRefundable)
        : null,
  },

  Receipt: {
    transactionHash: (r) => r.txHash,
    firstSeenAt: (r) => r.firstSeenAt.toISOString(),
    updatedAt: (r) => r.updatedAt.toISOString(),
  },
};

/** A refund as the graph shows it: REST's object in the graph's names. */
function refundOf(r: RefundView): Refund {
  return {
    id: r.id,
    transactionId: r.transaction_id,
    transactionReference: r.transaction_reference,
    isLive: r.is_live,
    state: upper(r.state),
    amountKind: upper(r.amount_kind),
    amount: r.amount,
    currency: r.currency,
    network: r.network,
    fiatAmount: r.fiat_amount,
    fiatCurrency: r.fiat_currency,
    valuation: upper(r.valuation),
    rate: r.rate,
    deductNetworkFee: r.deduct_network_fee,
    networkFee: r.network_fee,
    amountToCustomer: r.amount_to_customer,
    feeRate: r.fee_rate,
    destination: r.destination,
    destinationSource: r.destination_source.toUpperCase(),
    refundUrl: r.refund_url,
    claimExpiresAt: r.claim_expires_at,
    claimedAt: r.claimed_at,
    txHash: r.tx_hash,
    paidBy: r.paid_by,
    verification: r.verification,
    payment: r.payment && {
      uri: r.payment.uri,
      qr: r.payment.qr,
      psbt: r.payment.psbt,
      networkFee: r.payment.network_fee,
      evmTransaction: r.payment.evm_transaction,
      gasNeeded: r.payment.gas_needed,
      keyOriginMissing: r.payment.key_origin_missing,
      paidFrom: r.payment.paid_from,
      problem: r.payment.problem,
    },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    succeededAt: r.succeeded_at,
    canceledAt: r.canceled_at,
  };
}

const upper = <T extends string>(value: T) => value.toUpperCase() as Uppercase<T>;

/** The fields given: a null in the graph's input is a field left out of REST's body. */
const defined = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined));

/** The secret key's merchant and mode (a public key gets REST's 401), named to the request log; each use case checks its permission. */
async function merchantAccess(ctx: GraphQLContext): Promise<MerchantAccess> {
  const access = await ctx.gateway.access.key(ctx.bearerToken, ctx.clientAddress);
  ctx.seenMerchant(access.merchantId);
  return access;
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/** An endpoint as the graph shows it: REST's object in the graph's names; its secret only when just made or rotated. */
function webhookEndpointOf(endpoint: WebhookEndpointRow | WebhookEndpointView): WebhookEndpoint {
  return {
    id: endpoint.id,
    isLive: endpoint.isLive,
    url: endpoint.url,
    description: endpoint.description,
    enabledEvents: endpoint.enabledEvents,
    status: endpoint.disabledAt === null ? "ENABLED" : "DISABLED",
    disabledAt: iso(endpoint.disabledAt),
    disabledReason: endpoint.disabledReason,
    failingSince: iso(endpoint.failingSince),
    primary: endpoint.isPrimary,
    secretRotatedAt: iso(endpoint.secretRotatedAt),
    previousSecretExpiresAt: iso(endpoint.previousSecretExpiresAt),
    secret: "secret" in endpoint && endpoint.secret !== undefined ? endpoint.secret : null,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

function webhookDeliveryOf(entry: DeliveryLogEntry): WebhookDelivery {
  return {
    id: entry.id,
    endpointId: entry.endpointId,
    eventId: entry.eventId,
    eventType: entry.eventType,
    status: upper(deliveryStatus(entry)),
    attempts: entry.attemptCount,
    statusCode: entry.lastStatusCode,
    latencyMs: entry.lastLatencyMs,
    lastAttemptAt: iso(entry.lastAttemptAt),
    nextAttemptAt: iso(entry.nextAttemptAt),
    deliveredAt: iso(entry.deliveredAt),
    createdAt: entry.createdAt.toISOString(),
  };
}

/** A cursor page's parameters as the graph names them (Relay's), for the core's messages. */
const DELIVERY_LIST_NAMES = { limit: "first", starting_after: "after" } as const;

/** The list's parameters as the graph names them, for the core's messages. */
const GRAPH_NAMES = {
  ...DELIVERY_LIST_NAMES,
  status: "filter.status",
  currency: "filter.currency",
  payment_currency: "filter.paymentCurrency",
  "created[gte]": "filter.createdGte",
  "created[lt]": "filter.createdLt",
  q: "filter.search",
} as const;

const cryptoOf = (crypto: CryptoCurrency) => ({ id: crypto.id, slug: crypto.slug, name: crypto.name, decimals: crypto.decimals });

/** Authorized once, when the subscription starts: a refusal is the operation's error, and no event follows. */
function transactionUpdated(): SubscriptionResolverObject<TransactionParent, unknown, GraphQLContext, SubscriptionTransactionUpdatedArgs> {
  return {
    subscribe: (_root, { id }, ctx) => fromCore(() => ctx.gateway.payments.transactionUpdates(ctx.bearerToken, id)),
    resolve: ({ transaction, receipts, caller }: TransactionUpdate, _args, ctx) => {
      ctx.seenMerchant(caller.merchant.id);
      // The receipts came with the update's one read, shared by every subscriber of the transaction.
      const visible = { customer: customerVisibleTo(caller), clientSecret: clientSecretVisibleTo(caller) };
      return readParent({ transaction, view: ctx.gateway.payments.describe(transaction), receipts }, visible);
    },
  };
}

/**
 * What a query's details leave out: the payment request and checkout link, which the fields make when
 * selected (a poll without qrCode draws no QR image), and the receipts when none are selected.
 */
const perField = (info: GraphQLResolveInfo) => ({ paymentRequest: false, checkout: false, receipts: selectsBelow(info, "receipts") });

/** A read's answer: the row, view and receipts of one moment; the payment request and checkout link per field. */
function readParent(
  { transaction: record, view, receipts }: Pick<TransactionDetails, "transaction" | "view" | "receipts">,
  visible: { customer: boolean; clientSecret: boolean },
): TransactionParent {
  return { record, view, customerVisible: visible.customer, clientSecretVisible: visible.clientSecret, receipts: () => Promise.resolve(receipts) };
}

/** A mutation's answer: its use case's details hold all the graph shows, and the fields only shape them. */
function detailedParent(details: TransactionDetails, visible: { customer: boolean; clientSecret: boolean }): TransactionParent {
  const { transaction: record, view, paymentRequest, checkout, receipts } = details;
  return {
    record,
    view,
    customerVisible: visible.customer,
    clientSecretVisible: visible.clientSecret,
    receipts: () => Promise.resolve(receipts),
    shown: { paymentRequest, checkout },
  };
}

/** Computed once per transaction in a reply, however many of its fields need it. */
function oncePerParent<T>(compute: (parent: TransactionParent, ctx: GraphQLContext) => Promise<T>) {
  const results = new WeakMap<TransactionParent, Promise<T>>();
  return (parent: TransactionParent, ctx: GraphQLContext): Promise<T> => {
    let result = results.get(parent);
    if (!result) {
      result = compute(parent, ctx);
      results.set(parent, result);
    }
    return result;
  };
}

// clientSecret and checkoutUrl share one opening of the sealed secret; paymentUri and qrCode one rendering.
// A mutation's parent has them already (detailedParent); a query's asks only for the fields selected.
const checkout = oncePerParent(async (parent, ctx) => parent.shown?.checkout ?? ctx.gateway.payments.checkout(parent.record));
const paymentRequest = oncePerParent(async (parent, ctx) =>
  parent.shown ? parent.shown.paymentRequest : ctx.gateway.payments.paymentRequest(parent.record),
);

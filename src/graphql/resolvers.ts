// Resolvers map between the graph and the core; every rule stays in the core.
import { customerVisibleTo } from "../core/transactions/retrieve.ts";
import type { TransactionUpdate } from "../core/transactions/updates.ts";
import type { TransactionRecord } from "../core/transactions/record.ts";
import type { PaymentGateway } from "../core/gateway.ts";
import type { GraphQLContext, TransactionParent } from "./context.ts";
import { fromCore } from "./errors.ts";
import type { Resolvers, SubscriptionResolverObject, SubscriptionTransactionUpdatedArgs } from "./generated/resolvers.ts";
import { DateTimeScalar, DecimalScalar, JSONScalar } from "./scalars.ts";

const decimal = (value: { toString(): string } | null) => (value === null ? null : value.toString());
const orUndefined = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

export const resolvers: Resolvers = {
  Decimal: DecimalScalar,
  DateTime: DateTimeScalar,
  JSON: JSONScalar,

  Query: {
    transaction: (_root, { id }, ctx) =>
      fromCore(async () => {
        const { transaction, caller } = await ctx.gateway.retrieveTransaction(ctx.bearerToken, id);
        ctx.seenMerchant(caller.merchant.id);
        return transaction && parentOf(ctx, transaction, customerVisibleTo(caller));
      }),
  },

  Mutation: {
    initializeTransaction: (_root, { input }, ctx) =>
      fromCore(async () => {
        const record = await ctx.gateway.initializeTransaction({
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
          },
        });
        ctx.seenMerchant(record.merchantId);
        return parentOf(ctx, record, false);
      }),
    initiatePayment: (_root, { transactionId, input }, ctx) =>
      fromCore(async () => {
        const record = await ctx.gateway.initiatePayment({
          bearerToken: ctx.bearerToken,
          idempotencyKey: ctx.idempotencyKey,
          transactionId,
          body: { currency_id: input.currencyId, refund_address: input.refundAddress },
        });
        ctx.seenMerchant(record.merchantId);
        return parentOf(ctx, record, true);
      }),
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
    paymentState: ({ view }) => (view.payment ? (view.payment.state.toUpperCase() as Uppercase<typeof view.payment.state>) : null),
    paymentCurrency: ({ view: { paymentCurrency: crypto } }) =>
      crypto && { id: crypto.id, slug: crypto.slug, name: crypto.name, decimals: crypto.decimals },
    paymentAddress: ({ record }) => record.paymentAddress,
    paymentUri: async (parent, _args, ctx) => (await paymentRequest(parent, ctx))?.uri ?? null,
    qrCode: async (parent, _args, ctx) => (await paymentRequest(parent, ctx))?.qrCode ?? null,
    refundAddress: ({ record }) => record.refundAddress,
    quote: ({ view: { quote } }) => quote && { rate: quote.rate, source: quote.source, quotedAt: quote.quotedAt.toISOString() },
    isLive: ({ record }) => record.isLive,
    merchant: ({ record }) => record.merchant,
    meta: ({ record }) => record.requestMeta as Record<string, unknown>,
    createdAt: ({ record }) => record.createdAt.toISOString(),
    expiresAt: ({ record }) => record.expiresAt?.toISOString() ?? null,
    customer: ({ record, customerVisible }) => (customerVisible ? { email: record.customerEmail, name: record.customerName } : null),
  },
};

/** Authorized once, when the subscription starts: a refusal is the operation's error, and no event follows. */
function transactionUpdated(): SubscriptionResolverObject<TransactionParent, unknown, GraphQLContext, SubscriptionTransactionUpdatedArgs> {
  return {
    subscribe: (_root, { id }, ctx) => fromCore(() => ctx.gateway.transactionUpdates(ctx.bearerToken, id)),
    resolve: ({ transaction, caller }: TransactionUpdate, _args, ctx) => {
      ctx.seenMerchant(caller.merchant.id);
      return parentOf(ctx, transaction, customerVisibleTo(caller));
    },
  };
}

function parentOf(ctx: GraphQLContext, record: TransactionRecord, customerVisible: boolean): TransactionParent {
  return { record, view: ctx.gateway.describe(record), customerVisible };
}

// paymentUri and qrCode of one transaction share one rendering.
const rendered = new WeakMap<TransactionParent, ReturnType<PaymentGateway["paymentRequest"]>>();

function paymentRequest(parent: TransactionParent, ctx: GraphQLContext) {
  let request = rendered.get(parent);
  if (!request) {
    request = ctx.gateway.paymentRequest(parent.record);
    rendered.set(parent, request);
  }
  return request;
}

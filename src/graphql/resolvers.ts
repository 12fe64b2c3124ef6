// Resolvers map between the graph and the core; every rule stays in the core.
import { customerVisibleTo } from "../core/transactions/retrieve.ts";
import { cryptoById, fiatById } from "../core/money/currencies.ts";
import type { PaymentGateway } from "../core/gateway.ts";
import type { GraphQLContext, TransactionParent } from "./context.ts";
import { fromCore } from "./errors.ts";
import type { Resolvers } from "./generated/resolvers.ts";
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
        return transaction && { record: transaction, customerVisible: customerVisibleTo(caller) };
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
        return { record, customerVisible: false };
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
        return { record, customerVisible: true };
      }),
  },

  Transaction: {
    id: ({ record }) => record.id,
    reference: ({ record }) => record.reference,
    status: ({ record }) => record.status,
    description: ({ record }) => record.description,
    initializedAmount: ({ record }) => record.initializedAmount.toString(),
    initializedCurrency: ({ record }) => {
      const fiat = fiatById(record.initializedCurrencyId);
      if (!fiat) throw new Error(`Unknown fiat currency ${record.initializedCurrencyId}`);
      return { id: fiat.id, slug: fiat.slug, name: fiat.name };
    },
    paymentAmount: ({ record }) => decimal(record.paymentAmount),
    amountPaid: ({ record }) => decimal(record.amountPaid),
    amountUnconfirmed: ({ record }) => decimal(record.amountUnconfirmed),
    paymentState: ({ record }, _args, ctx) => {
      const state = ctx.gateway.paymentState(record);
      return state === null ? null : (state.toUpperCase() as Uppercase<typeof state>);
    },
    paymentCurrency: ({ record }) => {
      const crypto = record.paymentCurrencyId === null ? undefined : cryptoById(record.paymentCurrencyId);
      return crypto ? { id: crypto.id, slug: crypto.slug, name: crypto.name, decimals: crypto.decimals } : null;
    },
    paymentAddress: ({ record }) => record.paymentAddress,
    paymentUri: async (parent, _args, ctx) => (await paymentRequest(parent, ctx))?.uri ?? null,
    qrCode: async (parent, _args, ctx) => (await paymentRequest(parent, ctx))?.qrCode ?? null,
    refundAddress: ({ record }) => record.refundAddress,
    quote: ({ record }) =>
      record.quoteRate === null || record.quoteSource === null || record.quotedAt === null
        ? null
        : { rate: record.quoteRate.toString(), source: record.quoteSource, quotedAt: record.quotedAt.toISOString() },
    isLive: ({ record }) => record.isLive,
    merchant: ({ record }) => record.merchant,
    meta: ({ record }) => record.requestMeta as Record<string, unknown>,
    createdAt: ({ record }) => record.createdAt.toISOString(),
    expiresAt: ({ record }) => record.expiresAt?.toISOString() ?? null,
    customer: ({ record, customerVisible }) => (customerVisible ? { email: record.customerEmail, name: record.customerName } : null),
  },
};

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

// The checkout's operations on paygate's GraphQL API, all with the client secret as the Bearer
// credential (schema.graphql: paymentOptions, transaction, initiatePayment, transactionUpdated).
import type { FeeLevel, PaymentState, TransactionStatus } from "../shared/generated/schema.ts";
import { GraphQLClient, randomKey } from "../shared/graphql.ts";

// The states are the schema's (npm run codegen), not a list of the page's own.
export type { FeeLevel, PaymentState, TransactionStatus };

/** A network a coin is paid on, as the API names it (src/core/networks.ts). */
export interface PaymentNetwork {
  slug: string;
  /** The display name in the transaction's mode. */
  name: string;
  /** ERC-20, BEP-20, TRC-20; null for the chain's own coin. */
  standard: string | null;
  /** The explorer's page of a chain transaction: `{tx}` is the hash. */
  explorerTransactionUrl?: string | null;
  /** The token's contract in the transaction's mode; null for the chain's own coin. */
  tokenContract?: string | null;
  /** The contract's page on a block explorer. */
  explorerContractUrl?: string | null;
}

export interface CryptoCurrency {
  id: number;
  slug: string;
  name: string;
  decimals: number;
}

export interface PaymentOption {
  currency: CryptoCurrency;
  network: PaymentNetwork;
  feeLevel: FeeLevel;
  available: boolean;
  /** Indicative: at the current price, not locked until the customer picks it. */
  amount: string | null;
}

export interface PaymentOptions {
  transactionId: string;
  isLive: boolean;
  amount: string;
  currency: { slug: string };
  description: string | null;
  status: TransactionStatus;
  expiresAt: string | null;
  merchant: { name: string };
  options: PaymentOption[];
}

export interface Transaction {
  id: string;
  status: TransactionStatus;
  description: string | null;
  initializedAmount: string;
  initializedCurrency: { slug: string };
  paymentAmount: string | null;
  amountPaid: string | null;
  amountUnconfirmed: string | null;
  /** Of the least-confirmed payment still waiting, and what the chain needs. */
  confirmations: number | null;
  requiredConfirmations: number | null;
  paymentState: PaymentState | null;
  paymentCurrency: CryptoCurrency | null;
  paymentNetwork: PaymentNetwork | null;
  /** What is still to send, from the API. */
  amountOwed: string | null;
  paymentAddress: string | null;
  paymentUri: string | null;
  qrCode: string | null;
  isLive: boolean;
  merchant: { name: string };
  expiresAt: string | null;
  returnUrl: string | null;
  /** The merchant's "back to the shop" link before paying, and the language it fixed (or null). */
  cancelUrl: string | null;
  locale: string | null;
  /** The merchant's reference (bq_…), shown on the receipt. */
  reference: string;
  /** A replaceable one (BIP 125) waiting at 0 confirmations is not counted before its first: the page says so. */
  receipts: {
    state: "SEEN" | "CONFIRMED" | "DROPPED" | "REVERSED";
    replaceable: boolean;
    transactionHash: string | null;
    amount: string;
    firstSeenAt: string;
  }[];
}

export const TRANSACTION_FIELDS = `
  id status description initializedAmount initializedCurrency { slug }
  paymentAmount amountPaid amountUnconfirmed confirmations requiredConfirmations paymentState
  paymentCurrency { id slug name decimals } paymentNetwork { slug name standard explorerTransactionUrl tokenContract explorerContractUrl } amountOwed
  paymentAddress paymentUri qrCode isLive merchant { name } expiresAt returnUrl cancelUrl locale reference
  receipts { state replaceable transactionHash amount firstSeenAt }`;

const CHECKOUT = `query Checkout($id: ID!) {
  paymentOptions(transactionId: $id) {
    transactionId isLive amount currency { slug } description status expiresAt merchant { name }
    options { currency { id slug name decimals } network { slug name standard } feeLevel available amount }
  }
  transaction(id: $id) { ${TRANSACTION_FIELDS} }
}`;

const TRANSACTION = `query CheckoutTransaction($id: ID!) { transaction(id: $id) { ${TRANSACTION_FIELDS} } }`;

const INITIATE = `mutation CheckoutInitiate($id: ID!, $input: InitiatePaymentInput!) {
  initiatePayment(transactionId: $id, input: $input) { ${TRANSACTION_FIELDS} }
}`;

export const TRANSACTION_UPDATED = `subscription CheckoutUpdates($id: ID!) { transactionUpdated(id: $id) { ${TRANSACTION_FIELDS} } }`;

/** The client secret is `<transaction id>_secret_<32 base62 characters>`. */
const CLIENT_SECRET = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_secret_[0-9A-Za-z]{32}$/;

export function transactionIdOf(clientSecret: string): string | null {
  return CLIENT_SECRET.exec(clientSecret)?.[1] ?? null;
}

export class CheckoutApi {
  readonly client: GraphQLClient;

  constructor(
    readonly clientSecret: string,
    readonly transactionId: string,
  ) {
    this.client = new GraphQLClient("/graphql", clientSecret);
  }

  async load(): Promise<{ options: PaymentOptions | null; transaction: Transaction | null }> {
    const data = await this.client.request<{ paymentOptions: PaymentOptions | null; transaction: Transaction | null }>(CHECKOUT, {
      id: this.transactionId,
    });
    return { options: data.paymentOptions, transaction: data.transaction };
  }

  async transaction(): Promise<Transaction | null> {
    return (await this.client.request<{ transaction: Transaction | null }>(TRANSACTION, { id: this.transactionId })).transaction;
  }

  async initiate(currencyId: number, network: string, refundAddress: string | null, idempotencyKey = randomKey()): Promise<Transaction> {
    const input: Record<string, unknown> = { currencyId: String(currencyId), network };
    if (refundAddress) input.refundAddress = refundAddress;
    const data = await this.client.request<{ initiatePayment: Transaction }>(INITIATE, { id: this.transactionId, input }, { idempotencyKey });
    return data.initiatePayment;
  }
}

// How a network is named to the customer, in the page's language: networkLabelIn (i18n.ts).

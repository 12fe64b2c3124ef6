// Spec 4.1: create a transaction in INITIATED from a fiat amount and the customer's details.
import { randomUUID } from "node:crypto";
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import type { Caller } from "../credentials.ts";
import { KYB_REFUSALS } from "../records/kyb.ts";
import { Decimal, fiatAmountProblem } from "../money/amounts.ts";
import { FIAT_CURRENCIES, fiatBySlug } from "../money/currencies.ts";
import { CANCEL_URL, checkWebhookUrl, RETURN_URL, type UrlKind } from "../merchants/webhook-url.ts";
import { newClientSecret, newReference } from "../secrets.ts";
import { idempotently, requestProblems, scopeOf, type Outcome } from "./idempotency.ts";
import { InitializeBody, merchantRulesOf, parseBody } from "./requests.ts";
import { checkoutLink } from "./checkout.ts";
import { detailedOutcome, type DetailedOutcome, type DetailsDeps } from "./details.ts";
import { policiesOf } from "../policies.ts";
import { viewOf } from "./view.ts";
import { transactionRecordOf } from "../records/transactions.ts";

export interface InitializeRequest {
  /** The key from `Authorization: Bearer …`, when sent. */
  bearerToken: string | undefined;
  /** The body of spec 4.1, as received. */
  body: unknown;
  /** The `Idempotency-Key` header, when sent. */
  idempotencyKey?: string;
  /**
   * A caller the core proved otherwise: an invoice's page pays with the invoice's merchant and mode
   * (issue 44). A customer's credential, so the merchant's rules stay refused; no key is read then.
   */
  caller?: Caller;
}

export type InitializeDeps = Pick<CoreDeps, "credentials" | "clock" | "privateWebhookTargets"> & DetailsDeps;

/**
 * The transaction as initialize's reply shows it, with its client secret and checkout URL (its caller
 * made it, as Stripe shows a new PaymentIntent's); nothing is paid or payable yet.
 */
export async function initializeTransaction(deps: InitializeDeps, request: InitializeRequest): Promise<DetailedOutcome> {
  const made: { fresh: { id: string; clientSecret: string } | null } = { fresh: null };
  const outcome = await initializeOnce(deps, request, (id, clientSecret) => {
    made.fresh = { id, clientSecret };
  });
  const { replayed, ...transaction } = outcome;
  const fresh = made.fresh;
  // A new transaction's secret is at hand: no need to open the sealed copy just written.
  if (replayed || fresh === null || fresh.id !== transaction.id) return detailedOutcome(deps, outcome, { clientSecret: true });
  return {
    transaction,
    view: viewOf(transaction, deps.lifecycle),
    paymentRequest: null,
    checkout: checkoutLink(deps.publicUrl, fresh.clientSecret),
    receipts: [],
  };
}

async function initializeOnce(
  { stores, credentials, clock, lifecycle, secrets, privateWebhookTargets }: InitializeDeps,
  request: InitializeRequest,
  sealed: (id: string, clientSecret: string) => void,
): Promise<Outcome> {
  const parsed = parseBody(InitializeBody, request.body);
  const problems = requestProblems(parsed, request.idempotencyKey);
  if (!parsed.ok || problems.length > 0) throw errors.initializeValidation(problems);
  const body = parsed.value;

  const caller = request.caller ?? (await callerOf(credentials, body, request.bearerToken));
  requireMerchantForRules(body, caller);
  const currency = fiatBySlug(body.currency.toUpperCase());
  if (!currency) {
    const slugs = FIAT_CURRENCIES.map((c) => c.slug).join(" or ");
    throw errors
      .invalidPublicKey("unsupported_currency")
      .withHint(`${JSON.stringify(body.currency.slice(0, 20))} is not a currency paygate prices in: send ${slugs}`);
  }
  const amount = new Decimal(body.amount);
  const problem = fiatAmountProblem(amount, currency);
  if (problem) throw errors.initializeValidation([{ field: "amount", message: problem }]);
  requireKybForLive(caller);
  const returnUrl = customerUrlOf(body.return_url, "return_url", RETURN_URL, caller.isLive, privateWebhookTargets.live);
  const cancelUrl = customerUrlOf(body.cancel_url, "cancel_url", CANCEL_URL, caller.isLive, privateWebhookTargets.live);
  const policies = policiesOf(body, lifecycle.policyBounds);

  const scope = scopeOf(request.idempotencyKey, caller, "initialize", parametersOf(body));
  return idempotently(stores, scope, async () => {
    const now = clock.now();
    // One INSERT and no interactive transaction: initialize is the hot path (docs/benchmarks.md).
    const id = randomUUID();
    const clientSecret = newClientSecret(id);
    const transaction = await stores.transactions.insertInitiated(
      {
        id,
        reference: newReference(),
        merchantId: caller.merchant.id,
        customerEmail: body.customer.email,
        customerName: body.customer.name ?? null,
        paymentLinkId: caller.paymentLinkId,
        isLive: caller.isLive,
        description: body.description ?? null,
        initializedAmount: amount.toFixed(),
        initializedCurrencyId: currency.id,
        requestMeta: body.meta ?? {},
        createdAt: now,
        expiresAt: new Date(now.getTime() + lifecycle.initiatedWindowMs),
        clientSecretEnc: secrets.seal(clientSecret),
        returnUrl,
        cancelUrl,
        locale: body.locale ?? null,
        policyExpiresIn: policies.expiresIn,
        policyUnderpaymentTolerance: policies.underpaymentTolerance,
        policyConfirmations: policies.confirmations,
        policyLatePaymentPercent: policies.latePaymentPercent,
      },
      caller.merchant,
      scope,
    );
    sealed(id, clientSecret);
    return transactionRecordOf(transaction, { id: caller.merchant.id, name: caller.merchant.name });
  });
}

/** What the request asks for, whichever way its credential came (header or body). */
function parametersOf(body: InitializeBody) {
  const { public_key: _key, payment_link: _link, ...parameters } = body;
  return parameters;
}

async function callerOf(credentials: InitializeDeps["credentials"], body: InitializeBody, bearer: string | undefined): Promise<Caller> {
  const credential = credentialOf(body, bearer);
  return "secretKey" in credential
    ? credentials.authenticateMerchantServer(credential.publicKey, credential.secretKey)
    : credentials.authenticatePublic(credential);
}

type InitializeCredential = { publicKey: string } | { paymentLink: string } | { publicKey: string; secretKey: string };

/**
 * The body's `public_key` and the header's Bearer key are interchangeable (spec 4.1 rule 2);
 * sending both with different values, or either with a payment link, is a validation error. The one
 * exception: a secret key in the header with the body's public key is the merchant's server, proving
 * it may set the merchant's rules. A secret key alone stays the spec's lookup as a public key (404).
 */
function credentialOf(body: InitializeBody, bearer: string | undefined): InitializeCredential {
  if (body.payment_link !== undefined) {
    if (bearer !== undefined || body.public_key !== undefined) {
      throw errors.initializeValidation([
        { field: "payment_link", message: "send either a public key (Authorization header or public_key) or payment_link, not both" },
      ]);
    }
    return { paymentLink: body.payment_link };
  }
  if (body.public_key !== undefined && bearer?.startsWith("sec_")) return { publicKey: body.public_key, secretKey: bearer };
  if (body.public_key !== undefined && bearer !== undefined && body.public_key !== bearer) {
    throw errors.initializeValidation([
      { field: "public_key", message: "public_key differs from the key in the Authorization header; send one of them" },
    ]);
  }
  const publicKey = body.public_key ?? bearer;
  if (publicKey === undefined) {
    throw errors.initializeValidation([
      { field: "public_key", message: "public_key is required: send it in the body, as Authorization: Bearer pub_…, or send a payment_link" },
    ]);
  }
  return { publicKey };
}

/**
 * Issue 41: a customer's credential (a public key, a payment link) ships in browsers, so it may send
 * the customer's fields only; the merchant's rules loosen what the merchant accepts and need its
 * secret key. A payment link's transactions keep the operator's defaults (no per-link policies yet).
 */
function requireMerchantForRules(body: InitializeBody, caller: Caller): void {
  const rules = merchantRulesOf(body);
  if (rules.length > 0 && caller.keyKind !== "SECRET") throw errors.merchantRuleNeedsSecretKey(rules);
}

/**
 * The body's return_url or cancel_url, checked for the transaction's mode and normalised; null when none was given.
 * The service never fetches it (the customer's browser goes there), so test mode takes local hosts
 * whatever the webhooks' switch; live mode keeps the live webhook URLs' rule.
 */
function customerUrlOf(url: string | null | undefined, field: string, kind: UrlKind, isLive: boolean, allowPrivateLive: boolean): string | null {
  if (url === undefined || url === null) return null;
  const check = checkWebhookUrl(url, isLive ? "live" : "test", { allowPrivate: !isLive || allowPrivateLive, kind });
  if (!check.ok) throw errors.initializeValidation([{ field, message: `${field}: ${check.reason}` }]);
  return check.url;
}

function requireKybForLive(caller: Caller): void {
  const status = caller.merchant.kybStatus;
  if (!caller.isLive || status === "VERIFIED") return;
  throw errors.kybRequired(KYB_REFUSALS[status], `kyb_${status.toLowerCase()}`);
}

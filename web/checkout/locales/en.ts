// The checkout's English texts: the shape every other locale file follows (type Messages).
import { RECEIPT_TEXTS } from "../../../src/i18n/receipt-texts.ts";
import type { ApiErrorKey } from "../api-errors.ts";

/** A network's name in live and test mode, by the API's network slug (src/core/networks.ts). */
export type NetworkNames = Record<
  "ethereum" | "bsc" | "base" | "polygon" | "arbitrum" | "tron" | "bitcoin" | "litecoin",
  { live: string; test: string }
>;
/** A coin's name by the API's currency slug (src/core/money/currencies.ts). */
export type CoinNames = Record<"USDT" | "BTC" | "BNB" | "ETH" | "LTC" | "USDC", string>;

export const en = {
  // The paid page's wording, shared with the e-mails (src/i18n/receipt-texts.ts): one source for both.
  ...RECEIPT_TEXTS.en,
  language: "Language",
  pageTitle: (merchant: string, amount: string) => `Pay ${merchant} · ${amount}`,
  orderSummary: "Order summary",
  payment: "Payment",
  loading: "Loading your payment…",
  footer: "Secure checkout by paygate · payments go straight to the merchant's wallet",
  testMode: "Test mode",
  testModeText: " · This is a test payment: no real money moves. Pay with a test-network wallet.",
  paying: "Paying",
  amountDue: "Amount due",
  orderTotal: "Order total",
  backToShop: (merchant: string) => `Back to ${merchant}`,
  chooseTitle: "Choose how to pay",
  chooseHint: "Amounts are at today's price. The exact amount is fixed when you choose a coin, and you then have a limited time to send it.",
  refundSummary: "Add a refund address (optional)",
  refundLabel: "Your address for refunds",
  refundHelp: "On the network of the coin you choose, in case the merchant needs to send money back.",
  refundInvalid: (coin: string, network: string) => `This is not a ${coin} address on ${network}. Check it, or leave the field empty.`,
  gettingAddress: (coin: string) => `Getting your ${coin} payment address…`,
  onNetwork: (network: string) => ` on ${network}`,
  about: (amount: string) => `about ${amount}`,
  noPrice: "No price right now: try again soon",
  noCoins: "This merchant accepts no coin right now. Go back to the merchant's site to pay another way.",
  pickUnreachable: "The payment service could not be reached. Check your internet connection, then choose again.",
  pickUnpriced: (coin: string) => `${coin} cannot be priced right now. Try again in a moment, or choose another coin.`,
  pickRefused: (message: string) => `${message} Try again, or choose another coin.`,
  pickFailed: "Something went wrong. Try again, or choose another coin.",
  copy: "Copy",
  copyAmount: "Copy amount",
  copyAddress: "Copy address",
  amountCopied: "Amount copied.",
  addressCopied: "Address copied.",
  amountNotCopied: "Could not copy: select the amount and copy it.",
  addressNotCopied: "Could not copy: select the address and copy it.",
  amount: "Amount",
  amountStillToSend: "Amount still to send",
  address: "Address",
  qrAlt: (uri: string) => `QR code of the payment request ${uri}`,
  qrCaption: "Scan with your wallet app",
  payWith: (coin: string) => `Pay with ${coin}`,
  timeLeft: "Time left to pay: ",
  openInWallet: "Open in wallet app",
  payWithBrowserWallet: "Pay with browser wallet",
  walletConnecting: "Asking your wallet for an account…",
  walletSwitching: (network: string) => `Asking your wallet to switch to ${network}…`,
  walletConfirming: "Confirm the payment in your wallet.",
  walletSent: "Sent from your wallet. This page updates by itself when the network sees it.",
  walletRejected: "You declined in your wallet: nothing was sent. You can try again.",
  walletNoAccount: "Your wallet shared no account. Unlock it, then try again.",
  walletWrongChain: (network: string) => `Your wallet is on another network. Switch it to ${network}, then try again.`,
  walletUnknownChain: (network: string) => `Your wallet does not know ${network}. Add that network in your wallet, then try again.`,
  walletFailed: (message: string) => `Your wallet did not send the payment: ${message}`,
  /** The wallet's network and the payment's, when they differ (read before any connect prompt). */
  walletOtherNetwork: (wallet: string, payment: string) => `Your wallet is on ${wallet}; this payment is on ${payment}.`,
  /** A chain paygate does not know, in walletOtherNetwork's first place. */
  chainNumbered: (id: string) => `the network with chain ID ${id}`,
  walletNowOnNetwork: (network: string) => `Your wallet is now on ${network}.`,
  switchWalletTo: (network: string) => `Switch wallet to ${network}`,
  sendExactly: (coin: string, network: string) =>
    `Send exactly this amount of ${coin} on the ${network} network. A payment of another coin or on another network cannot be matched to this order and is lost.`,
  waitingTitle: "Waiting for your payment",
  waitingDetail: "Send the amount below to the address below. This page updates by itself when the payment reaches the network.",
  confirmingTitle: "Payment seen: waiting for confirmations",
  confirmingDetail: (arrived: string, progress: string, confirmed: string, due: string) =>
    `${arrived} arrived and awaits the network's confirmations${progress}. Confirmed so far: ${confirmed} of ${due}. It completes by itself: you may close this page.`,
  replaceable: " (your wallet marked it replaceable, so it counts from its first confirmation)",
  confirmationsOf: (count: string, required: string) => ` (${count} of ${required})`,
  underpaidDetail: (received: string, due: string, rest: string) =>
    `Received ${received} of ${due}. Send the remaining ${rest} to the same address before the time runs out (the QR code asks for the full amount: change it in your wallet).`,
  overpaidBody: (merchant: string, paid: string, due: string) =>
    `${merchant} has received ${paid}, more than the ${due} due: contact ${merchant} about the difference.`,
  lateTitle: "Your payment arrived after the time ran out",
  lateBody: (merchant: string, paid: string) =>
    `${merchant} has been told of your payment of ${paid} and will either complete your order or refund you.`,
  expiredTitle: "This payment has expired",
  underpaidExpiredBody: (received: string, due: string, merchant: string) =>
    `Only ${received} of ${due} arrived before the time ran out, so the order is not paid. Contact ${merchant} to get back what you sent.`,
  expiredBody: (merchant: string) =>
    `The time to pay ran out before a payment arrived, and nothing was charged. To pay, go back to ${merchant} and start again.`,
  returnTo: (merchant: string) => `Return to ${merchant}`,
  viewOnExplorer: "view on a block explorer",
  print: "Print receipt",
  invalidTitle: "This payment link is not valid",
  invalidText:
    "Check that you opened the whole link you were given. If it still fails, go back to the merchant's site and start the payment again: each payment has its own link.",
  unreachableTitle: "The payment service could not be reached",
  unreachableText: "Check your internet connection, then try again. A payment you already sent is not affected.",
  errorTitle: "Something went wrong",
  errorText: "Try again in a moment. A payment you already sent is not affected.",
  tryAgain: "Try again",
  checkoutName: "paygate checkout",
  connectionLost: "Connection to the payment service lost: retrying. A payment you send meanwhile is still counted.",
  /** A network's fee level (src/core/networks.ts's feeLevel), as the choice of coin and network shows it. */
  feeLevels: { LOW: "Network fees: low", MEDIUM: "Network fees: medium", HIGH: "Network fees: high" } as Record<"LOW" | "MEDIUM" | "HIGH", string>,
  tokenContract: "Token contract",
  tokenContractLink: "Token contract on a block explorer",
  /** Network names in this language by network slug; null: the API's own (English) names, from src/core/networks.ts. */
  networkNames: null as NetworkNames | null,
  /** Coin names in this language by currency slug, as networkNames; null: the API's own (Latin letters). */
  coinNames: null as CoinNames | null,
  /** What an API error means to the customer, by its reason or GraphQL code (api-errors.ts): never the API's own message. */
  apiErrors: {
    BAD_REQUEST: "The request could not be read.",
    BAD_USER_INPUT: "Something in the request is not valid.",
    UNAUTHENTICATED: "This payment link is not valid.",
    FORBIDDEN: "This payment link may not be used here.",
    NOT_FOUND: "This payment could not be found.",
    INVALID_STATE: "This payment cannot be changed any more.",
    KYB_REQUIRED: "This merchant cannot take payments yet.",
    UPSTREAM_UNAVAILABLE: "A service the payment needs is not answering right now.",
    DATABASE_UNAVAILABLE: "The payment service is busy right now; nothing was changed.",
    IDEMPOTENCY_CONFLICT: "This choice clashed with an earlier one; reload the page.",
    CONFLICT: "This conflicts with the payment's current state; reload the page.",
    GONE: "This link is no longer valid.",
    RATE_LIMITED: "Too many attempts in a short time: wait a moment.",
    INTERNAL_SERVER_ERROR: "The payment service had a problem.",
    network_not_allowed: "This coin cannot be paid on this network.",
    processor_not_configured: "The merchant does not accept this coin right now.",
    currency_not_supported: "This coin is not accepted.",
    merchant_inactive: "This merchant is not taking payments right now.",
    transaction_not_initiated: "A coin was already chosen for this payment, or it has ended.",
    transaction_closed: "This payment has ended.",
    wallet_busy: "Many payments are being started at once.",
    address_unavailable: "No payment address could be made for this coin right now.",
  } satisfies Record<ApiErrorKey, string>,
  apiErrorUnknown: (code: string) => `Something went wrong (error ${code}).`,
  timeUp: "The time to pay has run out.",
  lessThanAMinute: "Less than a minute left to pay.",
  minutesLeft: (minutes: number) => `${minutes} minutes left to pay.`,
  aboutMinutesLeft: (minutes: number) => `About ${minutes} minutes left to pay.`,
  aboutHoursLeft: (hours: number) => `About ${hours} hour${hours >= 2 ? "s" : ""} left to pay.`,
};

export type Messages = typeof en;

// The hosted checkout page (GET /checkout/<client secret>): what the customer of one transaction
// sees, from choosing a coin to the thank-you. It talks only to paygate's GraphQL API, with the
// client secret from its own address as the credential, and keeps no state of its own: a reload
// shows what the API says, so it shows the same thing.
import "./checkout.css";
import { copyText } from "../shared/clipboard.ts";
import { sum } from "../shared/decimal.ts";
import { h, replace } from "../shared/dom.ts";
import { ApiError, NetworkError } from "../shared/graphql.ts";
import { apiErrorText } from "./api-errors.ts";
import { CheckoutApi, type PaymentOption, type PaymentOptions, type Transaction, transactionIdOf } from "./api.ts";
import { clock } from "../shared/format.ts";
import {
  chooseLocale,
  directionOf,
  formatCrypto,
  formatDateTime,
  formatFiat,
  isLocale,
  LOCALE_NAMES,
  LOCALES,
  type Locale,
  MESSAGES,
  type Messages,
  coinNameIn,
  networkLabelIn,
  spokenTimeLeft,
} from "./i18n.ts";
import { followTransaction, type LiveUpdates } from "./live.ts";
import {
  type ChainOffer,
  type Eip1193Provider,
  type EvmTransfer,
  evmTransferOf,
  injectedProvider,
  payWithWallet,
  switchChain,
  type WalletFailure,
  WalletPaymentError,
  watchChain,
} from "./browser-wallet.ts";
import { chainWarningText } from "./chain-warning.ts";

type Phase = "loading" | "choose" | "pay" | "final" | "error";

interface Summary {
  merchant: string;
  amount: string;
  currency: string;
  description: string | null;
  isLive: boolean;
  /** The merchant's "back to the shop" link, shown before paying. */
  cancelUrl: string | null;
}

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const main = element<HTMLElement>("checkout");
const summaryBox = element<HTMLElement>("summary");
const panel = element<HTMLElement>("panel");
const banner = element<HTMLElement>("mode-banner");

let phase: Phase = "loading";
let shown: Transaction | null = null;
let summary: Summary | null = null;
let live: LiveUpdates | null = null;
let countdown: number | undefined;
let firstRender = true;
let lastOptions: PaymentOptions | null = null;
let lastError: { kind: ErrorKind; error: unknown } | null = null;
/** Stops following the wallet's chain (its chainChanged listener): called whenever the pay step is left or redrawn. */
let stopChainWatch: (() => void) | null = null;

// The language: the customer's pick (remembered in this browser), the merchant's, the browser's.
const PICKED_KEY = "paygate.checkout.locale";
let locale: Locale = chooseLocale(readPicked(), null, navigator.languages);
let m: Messages = MESSAGES[locale];
const fiat = (amount: string, currency: string) => formatFiat(amount, currency, locale);
const crypto = (amount: string, slug: string) => formatCrypto(amount, slug, locale);
applyLocale();

const clientSecret = decodeURIComponent(location.pathname.replace(/^.*\/checkout\//, "").replace(/\/+$/, ""));
const transactionId = transactionIdOf(clientSecret);
const api = transactionId ? new CheckoutApi(clientSecret, transactionId) : null;

void start();

async function start(): Promise<void> {
  if (!api) return showError("invalid");
  setBusy(true);
  try {
    const { options, transaction } = await api.load();
    if (!transaction) return showError("invalid");
    setLocale(chooseLocale(readPicked(), transaction.locale, navigator.languages));
    summary = summaryOf(transaction);
    renderSummary(summary);
    show(transaction, options);
    if (phase === "choose" || phase === "pay") startLive();
  } catch (error) {
    showError(kindOf(error), error);
  } finally {
    setBusy(false);
  }
}

function summaryOf(t: Transaction): Summary {
  return {
    merchant: t.merchant.name,
    amount: t.initializedAmount,
    currency: t.initializedCurrency.slug,
    description: t.description,
    isLive: t.isLive,
    cancelUrl: safeReturnUrl(t.cancelUrl),
  };
}

// ---- the language --------------------------------------------------------------------------------

function readPicked(): string | null {
  try {
    return localStorage.getItem(PICKED_KEY);
  } catch {
    return null;
  }
}

function setLocale(next: Locale): void {
  if (next === locale) return;
  locale = next;
  m = MESSAGES[next];
  applyLocale();
}

/** lang and dir on <html>, the page's fixed texts and the picker, in the current language. */
function applyLocale(): void {
  document.documentElement.lang = locale;
  document.documentElement.dir = directionOf(locale);
  summaryBox.setAttribute("aria-label", m.orderSummary);
  const title = document.getElementById("panel-title");
  if (title && phase === "loading") title.textContent = m.payment;
  const loading = panel.querySelector(".loading");
  if (loading) loading.textContent = m.loading;
  const footer = document.getElementById("footer");
  if (footer) {
    const picker = h(
      "select",
      {
        id: "locale-picker",
        name: "locale",
        onchange: (event: Event) => {
          const value = (event.target as HTMLSelectElement).value;
          if (!isLocale(value)) return;
          try {
            localStorage.setItem(PICKED_KEY, value);
          } catch {
            // A browser that keeps nothing: the pick lasts until the page is left.
          }
          setLocale(value);
          rerender();
          document.getElementById("locale-picker")?.focus();
        },
      },
      ...LOCALES.map((l) => h("option", { value: l, lang: l, selected: l === locale }, LOCALE_NAMES[l])),
    );
    replace(footer, h("p", { class: "language" }, h("label", { for: "locale-picker" }, `${m.language} `), picker), h("p", {}, m.footer));
  }
}

/** The page again in a new language, in the state it is in. */
function rerender(): void {
  if (summary) renderSummary(summary);
  if (phase === "choose") renderChoose(lastOptions);
  else if (phase === "pay" && shown) renderPay(shown);
  else if (phase === "final" && shown) renderFinal(shown);
  else if (phase === "error" && lastError) showError(lastError.kind, lastError.error);
}

function setBusy(busy: boolean): void {
  main.setAttribute("aria-busy", String(busy));
}

// ---- what is shown, by the transaction's state ------------------------------------------------

function phaseOf(t: Transaction): Phase {
  if (t.status === "INITIATED") return "choose";
  if (t.status === "PENDING") return "pay";
  return "final";
}

function show(t: Transaction, options: PaymentOptions | null = null): void {
  const next = phaseOf(t);
  const previous = shown;
  shown = t;
  if (next === phase && next === "pay") {
    updatePay(t);
    return;
  }
  if (next === phase && next === "choose") return;
  if (next === phase && next === "final" && previous?.paymentState === t.paymentState && previous.status === t.status) return;
  phase = next;
  stopCountdown();
  if (summary) renderSummary(summary);
  if (next === "choose") renderChoose(options);
  else if (next === "pay") renderPay(t);
  else {
    renderFinal(t);
    live?.stop();
    live = null;
  }
  focusHeading();
}

/** A new step moves focus to its heading, so a screen reader reads where the customer is now. */
function focusHeading(): void {
  if (firstRender) {
    firstRender = false;
    return;
  }
  panel.querySelector<HTMLElement>("h2")?.focus();
}

function startLive(): void {
  if (!api || live) return;
  live = followTransaction(
    api,
    (t) => {
      connectionNotice(null);
      show(t);
    },
    (error) => connectionNotice(error),
  );
}

// ---- the order summary and the test-mode banner ------------------------------------------------

function renderSummary(s: Summary): void {
  if (phase !== "final") document.title = m.pageTitle(s.merchant, fiat(s.amount, s.currency));
  if (!s.isLive) {
    banner.hidden = false;
    replace(banner, h("strong", {}, m.testMode), m.testModeText);
  }
  // Before paying the amount is due; after, it is the order's total (the receipt says what was paid).
  const beforePaying = phase === "loading" || phase === "choose" || phase === "pay";
  replace(
    summaryBox,
    h("p", { class: "merchant-label" }, m.paying),
    h("h1", { class: "merchant" }, s.merchant),
    s.description ? h("p", { class: "description" }, s.description) : null,
    h("p", { class: "amount-label" }, beforePaying ? m.amountDue : m.orderTotal),
    fiatAmount(fiat(s.amount, s.currency)),
    s.cancelUrl && beforePaying && shown?.paymentState !== "CONFIRMING" && shown?.paymentState !== "UNDERPAID"
      ? h("a", { class: "back-link", href: s.cancelUrl, id: "cancel-link" }, m.backToShop(s.merchant))
      : null,
  );
}

/** The order's amount, on one line: a long one ("NGN 999,999,999,999.99") is set smaller rather than broken. */
function fiatAmount(text: string): HTMLElement {
  const size = text.length > 18 ? "longest" : text.length > 12 ? "long" : "";
  return h("p", { class: `fiat-amount ${size}`.trim() }, h("span", { class: "number" }, text));
}

// ---- step 1: choose a coin -----------------------------------------------------------------------

function renderChoose(options: PaymentOptions | null): void {
  endChainWatch();
  lastOptions = options;
  const list = options?.options ?? [];
  const isLive = options?.isLive ?? false;
  const hint = h("p", { class: "hint", id: "coin-hint" }, m.chooseHint);
  const refundInput = h("input", {
    id: "refund-address",
    name: "refund-address",
    autocomplete: "off",
    spellcheck: "false",
    "aria-describedby": "refund-help refund-error",
  });
  const refundError = h("p", { class: "field-error", id: "refund-error" });
  const refund = h(
    "details",
    { class: "refund" },
    h("summary", {}, m.refundSummary),
    h("label", { for: "refund-address" }, m.refundLabel),
    h("p", { class: "hint", id: "refund-help" }, m.refundHelp),
    refundInput,
    refundError,
  );
  const pickStatus = h("p", { class: "pick-status", role: "status" });
  const pickError = h("div", { class: "alert", role: "alert" });
  const buttons: HTMLButtonElement[] = [];

  const pick = async (option: PaymentOption) => {
    if (!api) return;
    for (const b of buttons) b.disabled = true;
    refundError.textContent = "";
    pickError.replaceChildren();
    pickStatus.textContent = m.gettingAddress(coinNameIn(option.currency, m));
    setBusy(true);
    try {
      const transaction = await api.initiate(option.currency.id, option.network.slug, refundInput.value.trim() || null);
      pickStatus.textContent = "";
      show(transaction);
    } catch (error) {
      pickStatus.textContent = "";
      for (const [i, b] of buttons.entries()) b.disabled = !list[i]?.available;
      if (error instanceof ApiError && error.code === "INVALID_STATE" && error.reason === "transaction_not_initiated") {
        // Picked meanwhile (another tab): show what was picked.
        const transaction = await api.transaction().catch(() => null);
        if (transaction) return show(transaction);
      }
      if (error instanceof ApiError && error.fields.some((f) => f.field.toLowerCase().includes("refund"))) {
        refund.open = true;
        // The API's message is English and for developers: the customer is told in the page's language.
        refundError.textContent = m.refundInvalid(option.currency.slug, networkLabelIn(option.network, isLive, m));
        refundInput.setAttribute("aria-invalid", "true");
        refundInput.focus();
        return;
      }
      replace(pickError, h("p", {}, pickFailure(error, option)));
    } finally {
      setBusy(false);
    }
  };

  // A coin offered on several networks names the network on each of its buttons (the API's names).
  const several = (slug: string) => list.filter((o) => o.currency.slug === slug).length > 1;
  const items = list.map((option) => {
    const button = h(
      "button",
      {
        type: "button",
        class: "coin",
        "aria-describedby": "coin-hint",
        disabled: !option.available,
        onclick: () => void pick(option),
      },
      h("span", { class: "coin-name" }, `${coinNameIn(option.currency, m)} (${option.currency.slug})`),
      several(option.currency.slug) ? h("span", { class: "coin-network" }, m.onNetwork(networkLabelIn(option.network, isLive, m))) : "",
      h("span", { class: "coin-fee" }, m.feeLevels[option.feeLevel]),
      h("span", { class: "coin-amount" }, option.available && option.amount ? m.about(crypto(option.amount, option.currency.slug)) : m.noPrice),
    );
    buttons.push(button);
    return h("li", {}, button);
  });

  replace(
    panel,
    h("h2", { id: "panel-title", tabindex: "-1" }, m.chooseTitle),
    hint,
    items.length > 0 ? h("ul", { class: "coins", "aria-labelledby": "panel-title" }, ...items) : h("p", { class: "alert" }, m.noCoins),
    refund,
    pickStatus,
    pickError,
  );
}

/** The token's contract, shortened, linked to its explorer page: a wallet must send this token, not one of the same name. */
function contractField(t: Transaction, m: Messages): Node | string {
  const contract = t.paymentNetwork?.tokenContract;
  if (!contract) return "";
  const short = `${contract.slice(0, 6)}…${contract.slice(-4)}`;
  const url = t.paymentNetwork?.explorerContractUrl;
  const value = url
    ? h("a", { href: url, target: "_blank", rel: "noopener noreferrer", title: `${m.tokenContractLink}: ${contract}` }, short)
    : h("code", { title: contract }, short);
  return h("div", { class: "field" }, h("dt", {}, m.tokenContract), h("dd", {}, h("span", { class: "value", id: "pay-contract" }, value)));
}

function pickFailure(error: unknown, option: PaymentOption): string {
  if (error instanceof NetworkError) return m.pickUnreachable;
  if (error instanceof ApiError && error.reason === "quote_unavailable") return m.pickUnpriced(coinNameIn(option.currency, m));
  if (error instanceof ApiError) return m.pickRefused(apiErrorText(error, m));
  return m.pickFailed;
}

// ---- step 2: send the payment ---------------------------------------------------------------------

function renderPay(t: Transaction): void {
  endChainWatch();
  const coin = t.paymentCurrency;
  if (!coin || !t.paymentAmount || !t.paymentAddress) {
    showError("other");
    return;
  }
  const network = t.paymentNetwork ? networkLabelIn(t.paymentNetwork, t.isLive, m) : coinNameIn(coin, m);

  const copyStatus = h("p", { class: "copy-status", role: "status" });
  let clearCopyStatus: number | undefined;
  const copyButton = (what: "amount" | "address", value: () => string) =>
    h(
      "button",
      {
        type: "button",
        class: "copy",
        "aria-label": what === "amount" ? m.copyAmount : m.copyAddress,
        onclick: async () => {
          const copied = await copyText(value());
          const [done, failed] = what === "amount" ? [m.amountCopied, m.amountNotCopied] : [m.addressCopied, m.addressNotCopied];
          copyStatus.textContent = copied ? done : failed;
          window.clearTimeout(clearCopyStatus);
          clearCopyStatus = window.setTimeout(() => {
            copyStatus.textContent = "";
          }, 5_000);
        },
      },
      m.copy,
    );

  const amountValue = h("code", { class: "value", id: "pay-amount" }, crypto(t.paymentAmount, coin.slug));
  const amountLabel = h("dt", { id: "pay-amount-label" }, m.amount);
  const fields = h(
    "dl",
    { class: "fields" },
    h(
      "div",
      { class: "field" },
      amountLabel,
      h(
        "dd",
        {},
        amountValue,
        copyButton("amount", () => amountValue.dataset.amount ?? ""),
      ),
    ),
    h(
      "div",
      { class: "field" },
      h("dt", {}, m.address),
      h(
        "dd",
        {},
        h("code", { class: "value address", id: "pay-address" }, t.paymentAddress),
        copyButton("address", () => t.paymentAddress ?? ""),
      ),
    ),
    h("div", { class: "field" }, h("dt", {}, m.network), h("dd", {}, h("span", { class: "value", id: "pay-network" }, network))),
    contractField(t, m),
  );
  amountValue.dataset.amount = t.paymentAmount;

  const qr = t.qrCode
    ? h(
        "figure",
        { class: "qr" },
        h("img", { src: t.qrCode, alt: m.qrAlt(t.paymentUri ?? ""), width: "200", height: "200" }),
        h("figcaption", { id: "qr-caption" }, m.qrCaption),
      )
    : null;

  replace(
    panel,
    h("h2", { id: "panel-title", tabindex: "-1" }, m.payWith(coinNameIn(coin, m))),
    h("div", { class: "status", id: "pay-status", role: "status" }),
    h(
      "p",
      { class: "countdown" },
      h("span", {}, m.timeLeft),
      h("time", { id: "countdown", "aria-hidden": "true" }),
      h("span", { class: "sr-only", id: "countdown-spoken", "aria-live": "polite" }),
    ),
    h("div", { class: "pay-grid" }, h("div", { class: "pay-details" }, fields, copyStatus), qr),
    // A wallet link only for a URI with a scheme (BIP21, EIP-681): TRON's is the plain address, no link.
    t.paymentUri && /^[a-z][a-z0-9+.-]*:/i.test(t.paymentUri) ? h("a", { class: "button secondary", href: t.paymentUri }, m.openInWallet) : null,
    browserWalletPart(t, network),
    h("p", { class: "note" }, m.sendExactly(coin.slug, network)),
    h("p", { class: "connection", id: "connection", role: "status" }),
  );
  updatePay(t);
  startCountdown(t.expiresAt);
}

/**
 * "Pay with browser wallet": on an EVM network, when the browser has a wallet (window.ethereum) and
 * nothing has arrived yet. Its progress is spoken (role=status), a failure said in words (role=alert);
 * once sent, the page follows the payment as for any other. Above it, a warning when the wallet is on
 * another network than the payment (chainWarningPart).
 */
function browserWalletPart(t: Transaction, network: string): HTMLElement | null {
  const provider = injectedProvider();
  const transfer = evmTransferOf(t.paymentUri);
  if (!provider || !transfer || (t.paymentState !== null && t.paymentState !== "AWAITING_PAYMENT")) return null;
  const progress = h("p", { class: "wallet-progress", id: "wallet-progress", role: "status" });
  const failure = h("p", { class: "wallet-error", id: "wallet-error", role: "alert" });
  const explorer = t.paymentNetwork?.explorerTransactionUrl;
  const chain: ChainOffer = {
    name: network,
    // The coin paid natively is the chain's own; a token's chain is not offered to the wallet (it is asked to add it itself).
    nativeSymbol: transfer.kind === "native" ? (t.paymentCurrency?.slug ?? null) : null,
    explorer: explorer ? new URL(explorer.replace("{tx}", "0")).origin : null,
  };
  const button = h("button", { type: "button", class: "button", id: "pay-browser-wallet" }, m.payWithBrowserWallet);
  button.addEventListener("click", () => {
    button.disabled = true;
    failure.textContent = "";
    const steps = { connecting: m.walletConnecting, switching: m.walletSwitching(network), confirming: m.walletConfirming };
    payWithWallet(provider, transfer, chain, (step) => {
      progress.textContent = steps[step];
    })
      .then(() => {
        progress.textContent = m.walletSent;
      })
      .catch((error: unknown) => {
        progress.textContent = "";
        failure.textContent = walletFailureText(error, network);
        button.disabled = false;
        button.focus();
      });
  });
  const paymentName = t.paymentNetwork ? networkLabelIn({ ...t.paymentNetwork, standard: null }, t.isLive, m) : network;
  const warning = chainWarningPart(provider, transfer, chain, paymentName, failure, button);
  return h("div", { class: "browser-wallet" }, warning, button, progress, failure);
}

/** A wallet's failure in the page's words. */
function walletFailureText(error: unknown, network: string): string {
  const reason: WalletFailure = error instanceof WalletPaymentError ? error.failure : { kind: "failed", message: String(error) };
  switch (reason.kind) {
    case "rejected":
      return m.walletRejected;
    case "no_account":
      return m.walletNoAccount;
    case "wrong_chain":
      return m.walletWrongChain(network);
    case "unknown_chain":
      return m.walletUnknownChain(network);
    default:
      return m.walletFailed(reason.message);
  }
}

/**
 * "Your wallet is on BNB Smart Chain; this payment is on Base": read from the wallet's chain id
 * without asking for an account, followed live (chainChanged) until the pay step is left, with a
 * button that asks the wallet to switch. The sentence sits in a polite status region, written only
 * when it changes; a wallet that comes to the right chain after a warning is told it is there now.
 */
function chainWarningPart(
  provider: Eip1193Provider,
  transfer: EvmTransfer,
  chain: ChainOffer,
  paymentName: string,
  failure: HTMLElement,
  payButton: HTMLButtonElement,
): HTMLElement {
  const text = h("p", { class: "chain-warning", id: "chain-warning", role: "status" });
  const switchButton = h("button", { type: "button", class: "button secondary", id: "switch-chain", hidden: true }, m.switchWalletTo(paymentName));
  let warned = false;
  const onChain = (chainId: number | null) => {
    const warning = chainWarningText(chainId, { chainId: transfer.chainId, name: paymentName }, m);
    const next = warning ?? (warned && chainId === transfer.chainId ? m.walletNowOnNetwork(paymentName) : "");
    if (text.textContent !== next) text.textContent = next;
    text.dataset.state = warning ? "wrong" : next ? "right" : "";
    // Once warned, the right chain is said (and said once: the text is only written when it changes).
    warned = warned || warning !== null;
    const wasFocused = document.activeElement === switchButton;
    switchButton.hidden = warning === null;
    // The button goes once the wallet is on the chain: keyboard focus moves on to paying, not to the page's top.
    if (wasFocused && switchButton.hidden) payButton.focus();
  };
  switchButton.addEventListener("click", () => {
    switchButton.disabled = true;
    failure.textContent = "";
    switchChain(provider, transfer.chainId, chain)
      // A wallet that switches without a chainChanged event still ends the warning.
      .then(() => onChain(transfer.chainId))
      .catch((error: unknown) => {
        failure.textContent = walletFailureText(error, chain.name);
      })
      .finally(() => {
        switchButton.disabled = false;
      });
  });
  endChainWatch();
  stopChainWatch = watchChain(provider, onChain);
  return h("div", { class: "chain-warning-area" }, text, switchButton);
}

function endChainWatch(): void {
  stopChainWatch?.();
  stopChainWatch = null;
}

function updatePay(t: Transaction): void {
  const coin = t.paymentCurrency;
  const status = document.getElementById("pay-status");
  if (!coin || !t.paymentAmount || !status) return;
  const seen = addSeen(t, coin.decimals);
  const amountValue = document.getElementById("pay-amount");
  const amountLabel = document.getElementById("pay-amount-label");
  let title = m.waitingTitle;
  let detail = m.waitingDetail;
  let due = t.paymentAmount;
  switch (t.paymentState) {
    case "CONFIRMING":
      title = m.confirmingTitle;
      detail = m.confirmingDetail(
        crypto(t.amountUnconfirmed ?? seen, coin.slug),
        confirmationsText(t),
        crypto(t.amountPaid ?? "0", coin.slug),
        crypto(t.paymentAmount, coin.slug),
      );
      break;
    case "UNDERPAID":
      due = t.amountOwed ?? t.paymentAmount;
      title = m.underpaidTitle;
      detail = m.underpaidDetail(crypto(seen, coin.slug), crypto(t.paymentAmount, coin.slug), crypto(due, coin.slug));
      break;
  }
  replace(status, h("p", { class: "status-title" }, title), h("p", { class: "status-detail" }, detail));
  status.dataset.state = t.paymentState ?? "";
  // Once a payment is on its way, "back to the shop" would only lose it.
  if (t.paymentState === "CONFIRMING" || t.paymentState === "UNDERPAID") {
    document.getElementById("cancel-link")?.remove();
    document.getElementById("pay-browser-wallet")?.remove();
    // The payment is on its way: which network the wallet is on no longer matters.
    endChainWatch();
    document.querySelector(".chain-warning-area")?.remove();
  }
  if (amountValue && amountLabel) {
    amountValue.textContent = crypto(due, coin.slug);
    amountValue.dataset.amount = due;
    amountLabel.textContent = t.paymentState === "UNDERPAID" ? m.amountStillToSend : m.amount;
  }
}

/** " (1 of 2)" when the API says how far the waiting payment has come. */
function confirmationsText(t: Transaction): string {
  // A wallet that marked the payment replaceable (RBF, BIP 125) could still swap it: it counts from its first confirmation.
  if (t.receipts.some((r) => r.state === "SEEN" && r.replaceable)) {
    return m.replaceable;
  }
  if (t.confirmations === null || t.requiredConfirmations === null) return "";
  const count = new Intl.NumberFormat(locale);
  return m.confirmationsOf(count.format(t.confirmations), count.format(t.requiredConfirmations));
}

/** Confirmed plus unconfirmed, exactly. */
function addSeen(t: Transaction, decimals: number): string {
  return sum(decimals, t.amountPaid, t.amountUnconfirmed);
}

function startCountdown(expiresAt: string | null): void {
  stopCountdown();
  const visible = document.getElementById("countdown");
  const spoken = document.getElementById("countdown-spoken");
  if (!expiresAt || !visible || !spoken) return;
  const deadline = Date.parse(expiresAt);
  visible.setAttribute("datetime", expiresAt);
  let said = "";
  let askedAtZero = false;
  const tick = () => {
    const left = deadline - Date.now();
    visible.textContent = clock(left);
    const words = spokenTimeLeft(left, m);
    if (words !== said) {
      said = words;
      spoken.textContent = words;
    }
    if (left <= 0 && !askedAtZero) {
      // The service's expiry job closes the window within seconds; the live updates show it.
      askedAtZero = true;
      live?.refresh();
    }
  };
  tick();
  countdown = window.setInterval(tick, 1_000);
}

function stopCountdown(): void {
  window.clearInterval(countdown);
  countdown = undefined;
}

// ---- the end: paid, expired, paid late -------------------------------------------------------------

function renderFinal(t: Transaction): void {
  endChainWatch();
  const s = summary ?? summaryOf(t);
  const coin = t.paymentCurrency;
  const amount = (value: string | null) => (coin && value ? crypto(value, coin.slug) : "");
  let title: string;
  let body: string;
  let tone: "success" | "ended";
  switch (t.paymentState) {
    case "PAID":
      tone = "success";
      title = m.paidTitle;
      body = m.paidBody(s.merchant, amount(t.amountPaid), fiat(s.amount, s.currency));
      break;
    case "OVERPAID":
      tone = "success";
      title = m.paidTitle;
      body = m.overpaidBody(s.merchant, amount(t.amountPaid), amount(t.paymentAmount));
      break;
    case "PAID_LATE":
      tone = "ended";
      title = m.lateTitle;
      body = m.lateBody(s.merchant, amount(t.amountPaid));
      break;
    case "UNDERPAID":
      tone = "ended";
      title = m.expiredTitle;
      body = m.underpaidExpiredBody(amount(coin ? addSeen(t, coin.decimals) : null), amount(t.paymentAmount), s.merchant);
      break;
    default:
      tone = "ended";
      title = m.expiredTitle;
      body = m.expiredBody(s.merchant);
  }
  document.title = `${title} · ${s.merchant}`;
  const back = safeReturnUrl(t.returnUrl);
  const paid = t.paymentState === "PAID" || t.paymentState === "OVERPAID" || t.paymentState === "PAID_LATE";
  replace(
    panel,
    h(
      "div",
      { class: `final ${tone}`, id: "final", "data-state": t.paymentState ?? t.status },
      h("h2", { id: "panel-title", tabindex: "-1" }, title),
      h("p", {}, body),
    ),
    paid ? receiptOf(t, s) : null,
    back ? h("a", { class: "button", href: back, id: "return-link" }, m.returnTo(s.merchant)) : null,
  );
}

/** The paid page's receipt: what was paid, when, in which coin on which network, and the chain transactions. */
function receiptOf(t: Transaction, s: Summary): HTMLElement {
  const coin = t.paymentCurrency;
  const counted = t.receipts.filter((r) => r.state === "CONFIRMED" || r.state === "SEEN");
  const last = counted
    .map((r) => r.firstSeenAt)
    .sort()
    .at(-1);
  const row = (label: string, ...value: (Node | string | null)[]) => h("div", { class: "field" }, h("dt", {}, label), h("dd", {}, ...value));
  const template = t.paymentNetwork?.explorerTransactionUrl ?? null;
  const hashes = [...new Set(counted.map((r) => r.transactionHash).filter((x): x is string => x !== null))];
  const explorer = (hash: string) => {
    const href = template ? safeReturnUrl(template.replace("{tx}", encodeURIComponent(hash))) : null;
    return h(
      "li",
      {},
      h("code", { class: "value hash" }, hash),
      href ? h("a", { href, rel: "noopener noreferrer", target: "_blank", class: "explorer-link" }, m.viewOnExplorer) : null,
    );
  };
  return h(
    "section",
    { class: "receipt", id: "receipt", "aria-labelledby": "receipt-title" },
    h("h3", { id: "receipt-title" }, m.receipt),
    h(
      "dl",
      { class: "fields" },
      row(m.reference, h("span", { class: "value", id: "receipt-reference" }, t.reference)),
      last ? row(m.date, h("time", { datetime: last, id: "receipt-date" }, formatDateTime(last, locale))) : null,
      coin && t.amountPaid ? row(m.amountPaid, h("span", { class: "value number", id: "receipt-amount" }, crypto(t.amountPaid, coin.slug))) : null,
      row(m.orderTotal, h("span", { class: "value number" }, fiat(s.amount, s.currency))),
      coin ? row(m.coin, h("span", { class: "value" }, `${coinNameIn(coin, m)} (${coin.slug})`)) : null,
      t.paymentNetwork ? row(m.network, h("span", { class: "value" }, networkLabelIn(t.paymentNetwork, t.isLive, m))) : null,
      hashes.length > 0 ? row(m.transaction, h("ul", { class: "hashes", id: "receipt-transactions" }, ...hashes.map(explorer))) : null,
    ),
    h("button", { type: "button", class: "button secondary print", onclick: () => window.print() }, m.print),
  );
}

/** The merchant's return_url (checked by the service like a webhook URL): only ever http(s). */
function safeReturnUrl(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

// ---- errors -----------------------------------------------------------------------------------------

type ErrorKind = "invalid" | "network" | "other";

function kindOf(error: unknown): ErrorKind {
  if (error instanceof NetworkError) return "network";
  if (error instanceof ApiError && ["UNAUTHENTICATED", "NOT_FOUND", "FORBIDDEN"].includes(error.code)) return "invalid";
  return "other";
}

function showError(kind: ErrorKind, error?: unknown): void {
  phase = "error";
  lastError = { kind, error };
  stopCountdown();
  endChainWatch();
  live?.stop();
  live = null;
  const retry = h("button", { type: "button", class: "button", onclick: () => location.reload() }, m.tryAgain);
  const [title, text, action] =
    kind === "invalid"
      ? [m.invalidTitle, m.invalidText, null]
      : kind === "network"
        ? [m.unreachableTitle, m.unreachableText, retry]
        : [m.errorTitle, `${error instanceof ApiError ? `${apiErrorText(error, m)} ` : ""}${m.errorText}`, retry];
  document.title = `${title} · ${m.checkoutName}`;
  if (!summary) replace(summaryBox, h("p", { class: "merchant-label" }, m.checkoutName));
  replace(
    panel,
    h("div", { class: "alert error", role: "alert", id: "error" }, h("h2", { id: "panel-title", tabindex: "-1" }, title), h("p", {}, text)),
    action,
  );
  focusHeading();
}

/** A failed refresh while paying: said quietly, and cleared by the next answer. */
function connectionNotice(error: unknown): void {
  const notice = document.getElementById("connection");
  if (!notice) return;
  if (error === null) {
    notice.textContent = "";
    return;
  }
  if (kindOf(error) === "invalid") {
    showError("invalid");
    return;
  }
  notice.textContent = m.connectionLost;
}

// The hosted checkout page (GET /checkout/<client secret>): what the customer of one transaction
// sees, from choosing a coin to the thank-you. It talks only to paygate's GraphQL API, with the
// client secret from its own address as the credential, and keeps no state of its own: a reload
// shows what the API says, so it shows the same thing.
import "./checkout.css";
import { copyText } from "../shared/clipboard.ts";
import { subtract, sum } from "../shared/decimal.ts";
import { h, replace } from "../shared/dom.ts";
import { ApiError, NetworkError } from "../shared/graphql.ts";
import { CheckoutApi, type PaymentOption, type PaymentOptions, type Transaction, transactionIdOf } from "./api.ts";
import { clock, crypto, fiat, spokenTimeLeft } from "../shared/format.ts";
import { followTransaction, type LiveUpdates } from "./live.ts";
import { networkOf } from "./networks.ts";

type Phase = "loading" | "choose" | "pay" | "final" | "error";

interface Summary {
  merchant: string;
  amount: string;
  currency: string;
  description: string | null;
  isLive: boolean;
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
  };
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
  document.title = `Pay ${s.merchant} · ${fiat(s.amount, s.currency)}`;
  if (!s.isLive) {
    banner.hidden = false;
    replace(banner, h("strong", {}, "Test mode"), " · This is a test payment: no real money moves. Pay with a test-network wallet.");
  }
  replace(
    summaryBox,
    h("p", { class: "merchant-label" }, "Paying"),
    h("h1", { class: "merchant" }, s.merchant),
    s.description ? h("p", { class: "description" }, s.description) : null,
    h("p", { class: "amount-label" }, "Amount due"),
    h("p", { class: "fiat-amount" }, fiat(s.amount, s.currency)),
  );
}

// ---- step 1: choose a coin -----------------------------------------------------------------------

function renderChoose(options: PaymentOptions | null): void {
  const list = options?.options ?? [];
  const hint = h(
    "p",
    { class: "hint", id: "coin-hint" },
    "Amounts are at today's price. The exact amount is fixed when you choose a coin, and you then have a limited time to send it.",
  );
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
    h("summary", {}, "Add a refund address (optional)"),
    h("label", { for: "refund-address" }, "Your address for refunds"),
    h("p", { class: "hint", id: "refund-help" }, "On the network of the coin you choose, in case the merchant needs to send money back."),
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
    pickStatus.textContent = `Getting your ${option.currency.name} payment address…`;
    setBusy(true);
    try {
      const transaction = await api.initiate(option.currency.id, refundInput.value.trim() || null);
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
        refundError.textContent = error.fields.find((f) => f.field.toLowerCase().includes("refund"))?.message ?? error.message;
        refundInput.setAttribute("aria-invalid", "true");
        refundInput.focus();
        return;
      }
      replace(pickError, h("p", {}, pickFailure(error, option)));
    } finally {
      setBusy(false);
    }
  };

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
      h("span", { class: "coin-name" }, `${option.currency.name} (${option.currency.slug})`),
      h(
        "span",
        { class: "coin-amount" },
        option.available && option.amount ? `about ${crypto(option.amount, option.currency.slug)}` : "No price right now: try again soon",
      ),
    );
    buttons.push(button);
    return h("li", {}, button);
  });

  replace(
    panel,
    h("h2", { id: "panel-title", tabindex: "-1" }, "Choose how to pay"),
    hint,
    items.length > 0
      ? h("ul", { class: "coins", "aria-labelledby": "panel-title" }, ...items)
      : h("p", { class: "alert" }, "This merchant accepts no coin right now. Go back to the merchant's site to pay another way."),
    refund,
    pickStatus,
    pickError,
  );
}

function pickFailure(error: unknown, option: PaymentOption): string {
  if (error instanceof NetworkError) return "The payment service could not be reached. Check your internet connection, then choose again.";
  if (error instanceof ApiError && error.code === "UPSTREAM_UNAVAILABLE") {
    return `${option.currency.name} cannot be priced right now. Try again in a moment, or choose another coin.`;
  }
  if (error instanceof ApiError) return `${error.message}. Try again, or choose another coin.`;
  return "Something went wrong. Try again, or choose another coin.";
}

// ---- step 2: send the payment ---------------------------------------------------------------------

function renderPay(t: Transaction): void {
  const coin = t.paymentCurrency;
  if (!coin || !t.paymentAmount || !t.paymentAddress) {
    showError("other");
    return;
  }
  const network = networkOf(coin.slug, t.isLive);

  const copyStatus = h("p", { class: "copy-status", role: "status" });
  let clearCopyStatus: number | undefined;
  const copyButton = (label: string, value: () => string) =>
    h(
      "button",
      {
        type: "button",
        class: "copy",
        "aria-label": `Copy ${label}`,
        onclick: async () => {
          const copied = await copyText(value());
          copyStatus.textContent = copied
            ? `${label[0]?.toUpperCase()}${label.slice(1)} copied.`
            : `Could not copy: select the ${label} and copy it.`;
          window.clearTimeout(clearCopyStatus);
          clearCopyStatus = window.setTimeout(() => {
            copyStatus.textContent = "";
          }, 5_000);
        },
      },
      "Copy",
    );

  const amountValue = h("code", { class: "value", id: "pay-amount" }, crypto(t.paymentAmount, coin.slug));
  const amountLabel = h("dt", { id: "pay-amount-label" }, "Amount");
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
      h("dt", {}, "Address"),
      h(
        "dd",
        {},
        h("code", { class: "value address", id: "pay-address" }, t.paymentAddress),
        copyButton("address", () => t.paymentAddress ?? ""),
      ),
    ),
    h("div", { class: "field" }, h("dt", {}, "Network"), h("dd", {}, h("span", { class: "value", id: "pay-network" }, network))),
  );
  amountValue.dataset.amount = t.paymentAmount;

  const qr = t.qrCode
    ? h(
        "figure",
        { class: "qr" },
        h("img", { src: t.qrCode, alt: `QR code of the payment request ${t.paymentUri ?? ""}`, width: "200", height: "200" }),
        h("figcaption", { id: "qr-caption" }, "Scan with your wallet app"),
      )
    : null;

  replace(
    panel,
    h("h2", { id: "panel-title", tabindex: "-1" }, `Pay with ${coin.name}`),
    h("div", { class: "status", id: "pay-status", role: "status" }),
    h(
      "p",
      { class: "countdown" },
      h("span", {}, "Time left to pay: "),
      h("time", { id: "countdown", "aria-hidden": "true" }),
      h("span", { class: "sr-only", id: "countdown-spoken", "aria-live": "polite" }),
    ),
    h("div", { class: "pay-grid" }, h("div", { class: "pay-details" }, fields, copyStatus), qr),
    t.paymentUri ? h("a", { class: "button secondary", href: t.paymentUri }, "Open in wallet app") : null,
    h(
      "p",
      { class: "note" },
      `Send exactly this amount of ${coin.slug} on the ${network} network. A payment of another coin or on another network cannot be matched to this order.`,
    ),
    h("p", { class: "connection", id: "connection", role: "status" }),
  );
  updatePay(t);
  startCountdown(t.expiresAt);
}

function updatePay(t: Transaction): void {
  const coin = t.paymentCurrency;
  const status = document.getElementById("pay-status");
  if (!coin || !t.paymentAmount || !status) return;
  const seen = addSeen(t, coin.decimals);
  const amountValue = document.getElementById("pay-amount");
  const amountLabel = document.getElementById("pay-amount-label");
  let title = "Waiting for your payment";
  let detail = "Send the amount below to the address below. This page updates by itself when the payment reaches the network.";
  let due = t.paymentAmount;
  switch (t.paymentState) {
    case "CONFIRMING":
      title = "Payment seen: waiting for confirmations";
      detail = `${crypto(t.amountUnconfirmed ?? seen, coin.slug)} arrived and awaits the network's confirmations${confirmationsText(t)}. Confirmed so far: ${crypto(
        t.amountPaid ?? "0",
        coin.slug,
      )} of ${crypto(t.paymentAmount, coin.slug)}. It completes by itself: you may close this page.`;
      break;
    case "UNDERPAID":
      due = subtract(coin.decimals, t.paymentAmount, t.amountPaid, t.amountUnconfirmed);
      title = "Part of the payment has arrived";
      detail = `Received ${crypto(seen, coin.slug)} of ${crypto(t.paymentAmount, coin.slug)}. Send the remaining ${crypto(
        due,
        coin.slug,
      )} to the same address before the time runs out (the QR code asks for the full amount: change it in your wallet).`;
      break;
  }
  replace(status, h("p", { class: "status-title" }, title), h("p", { class: "status-detail" }, detail));
  status.dataset.state = t.paymentState ?? "";
  if (amountValue && amountLabel) {
    amountValue.textContent = crypto(due, coin.slug);
    amountValue.dataset.amount = due;
    amountLabel.textContent = t.paymentState === "UNDERPAID" ? "Amount still to send" : "Amount";
  }
}

/** " (1 of 2)" when the API says how far the waiting payment has come. */
function confirmationsText(t: Transaction): string {
  if (t.confirmations === null || t.requiredConfirmations === null) return "";
  return ` (${t.confirmations} of ${t.requiredConfirmations})`;
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
    const words = spokenTimeLeft(left);
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
  const s = summary ?? summaryOf(t);
  const coin = t.paymentCurrency;
  const amount = (value: string | null) => (coin && value ? crypto(value, coin.slug) : "");
  let title: string;
  let body: string;
  let tone: "success" | "ended";
  switch (t.paymentState) {
    case "PAID":
      tone = "success";
      title = "Thank you: payment received";
      body = `${s.merchant} has received your payment of ${amount(t.amountPaid)} (${fiat(s.amount, s.currency)}).`;
      break;
    case "OVERPAID":
      tone = "success";
      title = "Thank you: payment received";
      body = `${s.merchant} has received ${amount(t.amountPaid)}, more than the ${amount(t.paymentAmount)} due: contact ${s.merchant} about the difference.`;
      break;
    case "PAID_LATE":
      tone = "ended";
      title = "Your payment arrived after the time ran out";
      body = `${s.merchant} has been told of your payment of ${amount(t.amountPaid)} and will either complete your order or refund you.`;
      break;
    case "UNDERPAID":
      tone = "ended";
      title = "This payment has expired";
      body = `Only ${amount(coin ? addSeen(t, coin.decimals) : null)} of ${amount(t.paymentAmount)} arrived before the time ran out, so the order is not paid. Contact ${s.merchant} to get back what you sent.`;
      break;
    default:
      tone = "ended";
      title = "This payment has expired";
      body = `The time to pay ran out before a payment arrived, and nothing was charged. To pay, go back to ${s.merchant} and start again.`;
  }
  document.title = `${title} · ${s.merchant}`;
  const back = safeReturnUrl(t.returnUrl);
  replace(
    panel,
    h(
      "div",
      { class: `final ${tone}`, id: "final", "data-state": t.paymentState ?? t.status },
      h("h2", { id: "panel-title", tabindex: "-1" }, title),
      h("p", {}, body),
    ),
    back ? h("a", { class: "button", href: back, id: "return-link" }, `Return to ${s.merchant}`) : null,
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
  stopCountdown();
  live?.stop();
  live = null;
  const retry = h("button", { type: "button", class: "button", onclick: () => location.reload() }, "Try again");
  const [title, text, action] =
    kind === "invalid"
      ? [
          "This payment link is not valid",
          "Check that you opened the whole link you were given. If it still fails, go back to the merchant's site and start the payment again: each payment has its own link.",
          null,
        ]
      : kind === "network"
        ? [
            "The payment service could not be reached",
            "Check your internet connection, then try again. A payment you already sent is not affected.",
            retry,
          ]
        : [
            "Something went wrong",
            `${error instanceof ApiError ? `${error.message}. ` : ""}Try again in a moment. A payment you already sent is not affected.`,
            retry,
          ];
  document.title = `${title} · paygate checkout`;
  if (!summary) replace(summaryBox, h("p", { class: "merchant-label" }, "paygate checkout"));
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
  notice.textContent = "Connection to the payment service lost: retrying. A payment you send meanwhile is still counted.";
}

// A transaction's refunds on its page (issue 26; docs/refunds.md): what is left to refund, each refund
// with its state and how to pay it (the PSBT to sign for BTC and LTC, the unsigned EVM transaction and
// the gas it needs, the payment URI and its QR), and for owners and developers the Refund form, Cancel
// and Mark paid. A pending refund's state is asked for again (4 s, backing off to 30 s while nothing
// changes, never while the tab is hidden) and a change is announced; the asking stops when it leaves
// pending or the page goes. The server checks every rule again.
import { copyText } from "../../shared/clipboard.ts";
import { h, replace } from "../../shared/dom.ts";
import { randomKey } from "../../shared/graphql.ts";
import type { components } from "../../../sdk/src/generated/openapi.ts";
import type { PageContext } from "../context.ts";
import { alertSlot, field, runChange, showError, when } from "./parts.ts";

/** What the transaction page knows of its transaction. */
export interface RefundableTransaction {
  id: string;
  currency: string | null;
  payment_currency: string | null;
  amount_paid: string | null;
  refund_address: string | null;
}

/** The dashboard answers a refund as the REST API does (its presenter): the OpenAPI document's type. */
export type Refund = components["schemas"]["Refund"];

interface TransactionRefunds {
  refunds: Refund[];
  amount_refundable: string | null;
}

/** How soon a pending refund's state is asked for again after a change; each unchanged answer waits longer, up to the maximum. */
export const REFUND_POLL_MS = 4000;
export const REFUND_POLL_MAX_MS = 30_000;

/** The wait after an unchanged answer: half as long again, up to REFUND_POLL_MAX_MS (a claim or a payment can take days). */
export function nextPollDelay(previous: number): number {
  return Math.min(REFUND_POLL_MAX_MS, Math.round(previous * 1.5));
}

type Asked = "changed" | "same" | "closed";

/**
 * Asks now, then again after REFUND_POLL_MS, backing off while nothing changes; stops when the refund
 * is closed or the panel leaves the page. A hidden tab is not asked for: asking resumes, at once and
 * at the short wait, when it is shown again.
 */
function keepAsking(panel: HTMLElement, ask: () => Promise<Asked>): void {
  let delay = REFUND_POLL_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asking = false;
  const stop = () => {
    clearTimeout(timer);
    timer = undefined;
    document.removeEventListener("visibilitychange", onVisibility);
  };
  // `first`: the read as the panel is built; `fresh`: a read that starts the waits over (then 4 s).
  const turn = async (first = false, fresh = first) => {
    timer = undefined;
    // The first read is made as the panel is built (not yet on the page), even in a background tab: it
    // brings the payment details.
    if (!first && !panel.isConnected) {
      stop();
      return;
    }
    if (!first && document.visibilityState === "hidden") return;
    asking = true;
    const answer = await ask();
    asking = false;
    // The first answer can come before the panel is on the page (the page is still being put
    // together): only a later turn knows the panel has left it.
    if (answer === "closed" || (!first && !panel.isConnected)) {
      stop();
      return;
    }
    delay = answer === "changed" || fresh ? REFUND_POLL_MS : nextPollDelay(delay);
    if (document.visibilityState !== "hidden") timer = setTimeout(() => void turn(), delay);
  };
  function onVisibility(): void {
    if (!panel.isConnected) {
      stop();
    } else if (document.visibilityState === "hidden") {
      clearTimeout(timer);
      timer = undefined;
    } else if (timer === undefined && !asking) {
      void turn(false, true);
    }
  }
  document.addEventListener("visibilitychange", onVisibility);
  void turn(true);
}

const UTXO_COINS = ["BTC", "LTC"];

const STATE_LABELS: Record<Refund["state"], string> = {
  pending: "Pending: waiting for the payment",
  succeeded: "Succeeded: the money reached the customer",
  canceled: "Canceled",
};

const received = (t: RefundableTransaction) => t.amount_paid !== null && Number(t.amount_paid) > 0;

/** The Refunds section of a transaction page: empty (nothing) when nothing was received and no refund exists. */
export function refundsSection(ctx: PageContext, t: RefundableTransaction): HTMLElement {
  const section = h("section", { class: "card refunds", "aria-labelledby": "tx-refunds", id: "refunds" });
  void load(ctx, t, section);
  return section;
}

async function load(ctx: PageContext, t: RefundableTransaction, section: HTMLElement, focusId?: string, created?: Refund): Promise<void> {
  const heading = h("h2", { id: "tx-refunds" }, "Refunds");
  let found: TransactionRefunds;
  try {
    found = await ctx.api.get<TransactionRefunds>(ctx.withMode(`/transactions/${encodeURIComponent(t.id)}/refunds`));
  } catch (error) {
    const slot = alertSlot();
    replace(section, heading, slot);
    showError(slot, error);
    return;
  }
  const coin = t.payment_currency ?? "";
  const left = found.amount_refundable;
  const mayRefund = ctx.can("manage_refunds") && received(t) && left !== null && Number(left) > 0;
  const formSlot = h("div", {});
  const refundButton = mayRefund
    ? h("button", { type: "button", class: "button", id: "refund-open", "aria-expanded": "false", "aria-controls": "refund-form-slot" }, "Refund")
    : null;
  formSlot.id = "refund-form-slot";
  refundButton?.addEventListener("click", () => {
    const open = refundButton.getAttribute("aria-expanded") === "true";
    refundButton.setAttribute("aria-expanded", String(!open));
    if (open) {
      replace(formSlot);
      return;
    }
    replace(
      formSlot,
      refundForm(ctx, t, left ?? "0", (refund) => {
        void load(ctx, t, section, `refund-${refund.id}`, refund);
      }),
    );
    formSlot.querySelector<HTMLInputElement>("input")?.focus();
  });
  replace(
    section,
    heading,
    received(t)
      ? h("p", {}, left === null ? "" : `Left to refund: ${left} ${coin}`)
      : h("p", { class: "hint" }, "Nothing has been received on this transaction, so there is nothing to refund."),
    !ctx.can("manage_refunds") && received(t) ? h("p", { class: "hint" }, ctx.roleNote("Owners and developers can refund.")) : null,
    refundButton,
    formSlot,
    ...found.refunds
      .slice()
      .reverse()
      .map((r) => refundPanel(ctx, r.id === created?.id ? { ...r, ...created } : r, () => void load(ctx, t, section, `refund-${r.id}`))),
  );
  // The list shows no payment details: each pending refund's are read (and kept fresh) on its own.
  if (focusId) document.getElementById(focusId)?.focus();
}

function radios(name: string, legend: string, options: [string, string][], checked: string): HTMLFieldSetElement {
  return h(
    "fieldset",
    { class: "choices" },
    h("legend", {}, legend),
    ...options.map(([value, label]) =>
      h(
        "div",
        { class: "choice" },
        h("input", { type: "radio", name, id: `${name}-${value}`, value, checked: value === checked }),
        h("label", { for: `${name}-${value}` }, label),
      ),
    ),
  );
}

function refundForm(ctx: PageContext, t: RefundableTransaction, left: string, done: (refund: Refund) => void): HTMLElement {
  const coin = t.payment_currency ?? "";
  const fiatCode = t.currency ?? "";
  const errors = alertSlot("refund-form-error");
  const kind = radios(
    "refund-kind",
    "Amount",
    [
      ["full", `The whole payment (${left} ${coin} left)`],
      ["overpaid", "What was overpaid"],
      ["custom-fiat", `A custom amount in ${fiatCode}`],
      ["custom-crypto", `A custom amount in ${coin}`],
    ],
    "full",
  );
  const amount = h("input", {
    id: "refund-amount",
    name: "amount",
    inputmode: "decimal",
    autocomplete: "off",
    "aria-describedby": "refund-amount-hint",
  });
  const amountField = h(
    "div",
    { class: "field", hidden: true },
    h("label", { for: "refund-amount" }, "Amount to refund"),
    amount,
    h("p", { class: "hint", id: "refund-amount-hint" }, `In ${fiatCode} or ${coin}, as chosen above, e.g. 25.00 or 0.0015`),
  );
  kind.addEventListener("change", () => {
    const custom = kindOf(kind).startsWith("custom");
    amountField.hidden = !custom;
  });
  const valuation = radios(
    "refund-rate",
    "Value it at",
    [
      ["locked_rate", "The rate locked when the customer paid"],
      ["current_rate", "Today's rate"],
    ],
    "locked_rate",
  );
  const utxo = UTXO_COINS.includes(coin);
  const feeRate = h("input", {
    id: "refund-fee-rate",
    name: "fee_rate",
    inputmode: "decimal",
    autocomplete: "off",
    "aria-describedby": "refund-fee-hint",
  });
  const deduct = h("input", { id: "refund-deduct", type: "checkbox", name: "deduct_network_fee" });
  const submit = h("button", { type: "submit", class: "button" }, "Create refund");
  // One key per form shown: a double click or Enter sends it twice, and the service makes one refund
  // (the second answer is the first refund). A new form, after this one is done, gets a new key.
  const idempotencyKey = randomKey();
  const form = h(
    "form",
    { class: "card refund-form", "aria-labelledby": "refund-form-title", novalidate: true },
    h("h3", { id: "refund-form-title" }, "New refund"),
    kind,
    amountField,
    valuation,
    utxo
      ? field("Fee rate (sat/vB, optional)", feeRate, {
          id: "refund-fee-hint",
          text: "The network fee rate of the transaction you will sign; the service's estimate when empty.",
        })
      : null,
    h("div", { class: "choice" }, deduct, h("label", { for: "refund-deduct" }, "Take the network fee from the refund")),
    h(
      "p",
      {},
      "Destination: ",
      t.refund_address
        ? h("code", {}, t.refund_address)
        : "the customer gave no refund address, so the customer gets a claim link (shown once the refund is made) to enter one.",
    ),
    errors,
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (submit.disabled) return; // already sent, its answer not yet in
    const chosen = kindOf(kind);
    const body: Record<string, unknown> = {
      amount_kind: chosen.startsWith("custom") ? "custom" : chosen,
      valuation: (form.querySelector<HTMLInputElement>('input[name="refund-rate"]:checked')?.value ?? "locked_rate") as string,
      deduct_network_fee: deduct.checked,
    };
    if (chosen.startsWith("custom")) {
      body.amount = amount.value.trim();
      body.amount_currency = chosen === "custom-fiat" ? fiatCode : coin;
    }
    if (utxo && feeRate.value.trim() !== "") body.fee_rate = feeRate.value.trim();
    void runChange(submit, errors, async () => {
      const path = ctx.withMode(`/transactions/${encodeURIComponent(t.id)}/refunds`);
      const refund = await ctx.api.post<Refund>(path, body, { "idempotency-key": idempotencyKey });
      ctx.announce(`Refund created: ${refund.amount} ${refund.currency}, ${STATE_LABELS[refund.state]}`);
      done(refund);
    });
  });
  return form;
}

const kindOf = (kind: HTMLFieldSetElement) => kind.querySelector<HTMLInputElement>("input:checked")?.value ?? "full";

function list(entries: [string, Node | string | null][]): HTMLElement {
  return h("dl", { class: "fields" }, ...entries.flatMap(([term, value]) => (value === null ? [] : [h("dt", {}, term), h("dd", {}, value)])));
}

function stateText(r: Refund): string {
  if (r.state !== "pending") return `${STATE_LABELS[r.state]}${r.succeeded_at ? ` on ${when(r.succeeded_at)}` : ""}`;
  if (r.verification === "pending") return "Pending: checking your transaction hash on the chain";
  if (r.verification === "failed") return "Pending: the transaction hash you gave does not pay this refund; give another or pay it";
  if (r.destination === null) return "Pending: waiting for the customer to claim it";
  return STATE_LABELS.pending;
}

/** One refund: its fields, how to pay it, its controls; a pending one asks for its state every few seconds. */
function refundPanel(ctx: PageContext, r: Refund, reload: () => void): HTMLElement {
  const panel = h("article", { class: "card refund", "aria-labelledby": `refund-${r.id}` });
  const live = h("p", { class: "refund-state", role: "status", "aria-live": "polite" }, stateText(r));
  const draw = (refund: Refund) => {
    replace(
      panel,
      h("h3", { id: `refund-${refund.id}`, tabindex: "-1" }, `Refund of ${refund.amount} ${refund.currency}`),
      live,
      list([
        ["Id", h("code", {}, refund.id)],
        ["Made", when(refund.created_at)],
        ["Amount", `${refund.amount} ${refund.currency} (${refund.fiat_amount} ${refund.fiat_currency})`],
        [
          "Valued at",
          `${refund.valuation === "locked_rate" ? "the locked rate" : "the rate when made"}: 1 ${refund.currency} = ${refund.rate} ${refund.fiat_currency}`,
        ],
        [
          "Network fee",
          refund.network_fee === null
            ? null
            : `${refund.network_fee} ${refund.currency}${refund.deduct_network_fee ? " (taken from the refund)" : ""}`,
        ],
        ["To the customer", `${refund.amount_to_customer} ${refund.currency}`],
        [
          "Destination",
          refund.destination
            ? h("code", {}, refund.destination)
            : `The customer gets a claim link to enter an address${refund.claim_expires_at ? ` (until ${when(refund.claim_expires_at)})` : ""}`,
        ],
        ["Transaction hash", refund.tx_hash ? h("code", {}, refund.tx_hash) : null],
      ]),
      refund.refund_url ? claimLink(refund) : null,
      refund.state === "pending" && refund.payment ? payment(ctx, refund) : null,
      refund.state === "pending" && ctx.can("manage_refunds") ? controls(ctx, refund, reload) : null,
    );
  };
  draw(r);
  if (r.state === "pending") {
    // The list's object has no payment details: read the full one now, then again while pending.
    let last = r;
    keepAsking(panel, async () => {
      try {
        const now = await ctx.api.get<Refund>(ctx.withMode(`/refunds/${encodeURIComponent(r.id)}`));
        const changed = stateText(now) !== stateText(last);
        const merged = { ...now, refund_url: r.refund_url };
        if (changed || last === r) {
          const hadFocus = panel.contains(document.activeElement);
          live.textContent = stateText(merged);
          draw(merged);
          if (hadFocus) document.getElementById(`refund-${r.id}`)?.focus();
        }
        if (changed) ctx.announce(`Refund ${r.id}: ${stateText(merged)}`);
        last = merged;
        return now.state !== "pending" ? "closed" : changed ? "changed" : "same";
      } catch {
        return "same"; // a missed answer: ask again next time
      }
    });
  }
  return panel;
}

function copyField(id: string, label: string, value: string, note: string): HTMLElement {
  const status = h("span", { role: "status" });
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, type: "text", readonly: true, value, class: "secret", spellcheck: "false", "aria-describedby": `${id}-note` }),
    h("p", { class: "hint", id: `${id}-note` }, note),
    h(
      "button",
      {
        type: "button",
        class: "button secondary",
        onclick: () =>
          void copyText(value).then((ok) => {
            status.textContent = ok ? "Copied" : "Copying failed: select the text and copy it";
          }),
      },
      "Copy",
      h("span", { class: "sr-only" }, ` ${label.toLowerCase()}`),
    ),
    status,
  );
}

function claimLink(r: Refund): HTMLElement {
  return copyField(
    `claim-${r.id}`,
    "Claim link",
    r.refund_url ?? "",
    "Shown once: send it to the customer, who enters an address there (once). The service keeps only its hash.",
  );
}

function payment(ctx: PageContext, r: Refund): HTMLElement {
  const p = r.payment;
  if (!p) return h("div", {});
  const evm = p.evm_transaction;
  return h(
    "section",
    { class: "refund-payment", "aria-labelledby": `pay-${r.id}` },
    h("h4", { id: `pay-${r.id}` }, "Pay it"),
    p.psbt
      ? h(
          "p",
          {},
          h(
            "a",
            {
              class: "button",
              href: `/dashboard/api${ctx.withMode(`/refunds/${encodeURIComponent(r.id)}/psbt`)}`,
              download: `refund-${r.id}.psbt`,
            },
            "Download the PSBT",
          ),
          h("span", { class: "hint" }, " to sign in your wallet (Sparrow, Electrum, a hardware wallet), then broadcast it"),
        )
      : null,
    p.key_origin_missing ? h("p", { class: "alert" }, p.key_origin_missing) : null,
    p.paid_from ? h("p", { class: "hint" }, `${p.paid_from.note} Settlement address: `, h("code", {}, p.paid_from.address)) : null,
    evm
      ? h(
          "div",
          {},
          h(
            "p",
            {},
            p.paid_from
              ? "The unsigned transaction to sign with the key of the settlement address:"
              : "The unsigned transaction to sign with the key of the paid address:",
          ),
          list([
            ["From", h("code", {}, evm.from)],
            ["To", h("code", {}, evm.to)],
            ["Value (wei)", h("code", {}, evm.value)],
            ["Data", h("code", {}, evm.data)],
            ["Chain id", String(evm.chainId)],
            ["Gas", evm.gas],
            ["Type", evm.type === 2 ? "2 (EIP-1559)" : "0 (legacy)"],
            ["Max fee per gas (wei)", evm.maxFeePerGas],
            ["Max priority fee per gas (wei)", evm.maxPriorityFeePerGas],
            ["Gas price (wei, legacy)", evm.gasPrice],
          ]),
        )
      : null,
    p.gas_needed ? h("p", {}, `The paying address needs ${p.gas_needed.amount} ${p.gas_needed.coin} for gas.`) : null,
    p.problem ? h("p", { class: "hint" }, `No transaction to sign was built: ${p.problem}. Pay it from elsewhere with the URI or QR.`) : null,
    h("p", {}, "Or pay from any wallet: ", h("a", { href: p.uri, class: "refund-uri" }, h("code", {}, p.uri))),
    h("img", {
      src: p.qr,
      alt: `QR code of the payment URI: ${r.amount_to_customer} ${r.currency} to ${r.destination ?? ""}`,
      class: "refund-qr",
      width: "200",
      height: "200",
    }),
  );
}

function controls(ctx: PageContext, r: Refund, reload: () => void): HTMLElement {
  const errors = alertSlot();
  const cancel = h("button", { type: "button", class: "button danger" }, "Cancel refund");
  cancel.addEventListener("click", () => {
    void runChange(cancel, errors, async () => {
      await ctx.api.post<Refund>(ctx.withMode(`/refunds/${encodeURIComponent(r.id)}/cancel`));
      ctx.announce(`Refund ${r.id} canceled`);
      reload();
    });
  });
  const hashId = `mark-${r.id}`;
  const hash = h("input", {
    id: hashId,
    name: "tx_hash",
    spellcheck: "false",
    autocomplete: "off",
    class: "wide",
    "aria-describedby": `${hashId}-hint`,
  });
  const mark = h("button", { type: "submit", class: "button secondary" }, "Mark paid");
  const form = h(
    "form",
    { class: "mark-paid", novalidate: true },
    field("Paid it yourself? Transaction hash", hash, {
      id: `${hashId}-hint`,
      text: "The service checks it on the chain before it counts the refund as succeeded.",
    }),
    mark,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void runChange(
      mark,
      errors,
      async () => {
        await ctx.api.post<Refund>(ctx.withMode(`/refunds/${encodeURIComponent(r.id)}/mark_paid`), { tx_hash: hash.value.trim() });
        ctx.announce(`Refund ${r.id} marked paid: the hash is being checked`);
        reload();
      },
      hash,
    );
  });
  return h("div", { class: "refund-controls" }, form, cancel, errors);
}

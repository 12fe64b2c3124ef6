// The Settlement page's TRON and sweep sections (issue 40; docs/settlement.md, Own addresses and
// Sweeping fresh addresses): the own-address setting (on with k addresses, or off), the unmatched
// receipts with "Assign to a transaction" and "Mark refunded" for open ones, and a sweep plan of a
// network's per-payment addresses. Owners and developers change and plan; other roles read the
// setting and receipts. The server checks every rule again and names the refused field.
import type { components } from "../../../sdk/src/generated/openapi.ts";
import { CHAINS, type NetworkSlug, explorerLink, networkName } from "../../../src/core/networks.ts";
import { h, replace } from "../../shared/dom.ts";
import { ApiError } from "../api.ts";
import type { PageContext } from "../context.ts";
import { alertSlot, field, modeLabel, runChange, showError, table, when } from "./parts.ts";

// As REST shows them (the OpenAPI document, through the SDK's generated types).
type OwnAddressSetting = components["schemas"]["OwnAddressSetting"];
type UnmatchedReceipt = components["schemas"]["UnmatchedReceipt"];
type SweepPlan = components["schemas"]["SweepPlan"];

/** Own addresses are TRON's (unique amounts tell payments apart there). */
const OWN_NETWORK = "tron";
const MAX_OWN_ADDRESSES = 10;
/** The account networks a plan covers: UTXO coins are consolidated instead. */
const SWEEP_NETWORKS = (Object.keys(CHAINS) as NetworkSlug[]).filter((n) => CHAINS[n].family !== "utxo");
const RECEIPT_STATES: Record<UnmatchedReceipt["state"], string> = { open: "Open", assigned: "Assigned", refunded: "Refunded" };

/** A refusal that names fields says what is wrong with each, not only that something is. */
function withFields(error: unknown): never {
  if (error instanceof ApiError && error.fields.length > 0) {
    throw new ApiError(error.fields.map((f) => f.message).join("; "), error.code, error.status, error.reason, error.fields);
  }
  throw error;
}

const textInput = (id: string, placeholder: string, describedBy?: string) =>
  h("input", { id, type: "text", autocomplete: "off", spellcheck: "false", class: "wide", placeholder, "aria-describedby": describedBy });

/** The own-address setting and the unmatched receipts: the section and its first load. */
export function ownAddressSection(ctx: PageContext): { section: HTMLElement; load: () => Promise<void> } {
  const live = ctx.mode === "live";
  const manage = ctx.can("manage_settlement");
  const tron = networkName(OWN_NETWORK, live);
  const settingSlot = h("div", { id: "own-address-setting" });
  const receiptsSlot = h("div", { id: "unmatched-receipts" });
  const error = alertSlot("own-address-load-error");

  const showSetting = async () => {
    const { own_addresses } = await ctx.api.get<{ own_addresses: OwnAddressSetting[] }>(ctx.withMode("/settlement/own-addresses"));
    const setting = own_addresses.find((s) => s.network === OWN_NETWORK);
    replace(
      settingSlot,
      setting
        ? h(
            "div",
            {},
            h(
              "p",
              { id: "own-address-state" },
              `On: new ${tron} payments go to ${setting.address_count} own address${setting.address_count === 1 ? "" : "es"}, told apart by amount.`,
            ),
            setting.addresses.length > 0
              ? h("ol", { class: "addresses" }, ...setting.addresses.map((a) => h("li", {}, h("code", { class: "address" }, a))))
              : h("p", { class: "hint" }, "No addresses yet: the merchant has no TRON wallet setting in this mode."),
          )
        : h("p", { id: "own-address-state" }, `Off: each new ${tron} payment gets a fresh address.`),
    );
    if (manage) replace(settingActions, ...settingControls(setting));
  };

  const settingError = alertSlot("own-address-error");
  const settingActions = h("div", {});
  const settingControls = (setting: OwnAddressSetting | undefined): HTMLElement[] => {
    const count = h("input", { id: "own-address-count", type: "number", min: "1", max: String(MAX_OWN_ADDRESSES), step: "1", inputmode: "numeric" });
    count.value = String(setting?.address_count ?? 1);
    const submit = h("button", { type: "submit", class: "button" }, setting ? "Change" : "Turn on");
    const form = h(
      "form",
      { class: "card", id: "own-address-form", "aria-labelledby": "own-address-form-title", novalidate: true },
      h("h3", { id: "own-address-form-title" }, `Own addresses on ${tron}`),
      field("Number of own addresses", count, {
        id: "own-address-count-hint",
        text: `1 to ${MAX_OWN_ADDRESSES}. A change affects new payments only.`,
      }),
      settingError,
      h("div", { class: "actions" }, submit),
    );
    count.setAttribute("aria-describedby", "own-address-count-hint");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void runChange(
        submit,
        settingError,
        async () => {
          const n = count.value.trim() === "" ? Number.NaN : Number(count.value);
          const body = { address_count: Number.isInteger(n) ? n : count.value };
          await ctx.api.post(ctx.withMode(`/settlement/own-addresses/${OWN_NETWORK}`), body).catch(withFields);
          ctx.announce(`New ${tron} payments go to ${count.value} own addresses`);
          await showSetting();
        },
        count,
      );
    });
    if (!setting) return [form];
    const off = h("button", { type: "button", class: "button secondary", id: "own-address-off" }, `Turn off on ${tron}`);
    off.addEventListener("click", () => {
      void runChange(off, settingError, async () => {
        await ctx.api.delete(ctx.withMode(`/settlement/own-addresses/${OWN_NETWORK}`));
        ctx.announce(`Own addresses turned off on ${tron}: new payments get a fresh address each`);
        await showSetting();
      });
    });
    form.querySelector(".actions")?.append(off);
    return [form];
  };

  const showReceipts = async () => {
    const { receipts } = await ctx.api.get<{ receipts: UnmatchedReceipt[]; has_more: boolean }>(
      ctx.withMode("/settlement/unmatched-receipts?limit=50"),
    );
    if (receipts.length === 0) {
      replace(receiptsSlot, h("p", { id: "no-unmatched" }, `No unmatched receipts in ${modeLabel(ctx.mode)}.`));
      return;
    }
    const rows = receipts.map((r) => [
      r.amount,
      r.currency,
      h("code", { class: "address" }, r.address),
      r.tx_hash ? txLink(r.network, live, r.tx_hash) : "—",
      h("time", { datetime: r.seen_at }, when(r.seen_at)),
      receiptState(r),
    ]);
    const open = manage ? receipts.filter((r) => r.state === "open") : [];
    replace(
      receiptsSlot,
      table(`Unmatched receipts (${modeLabel(ctx.mode)}), newest first`, ["Amount", "Coin", "Address", "Transaction", "Seen", "State"], rows),
      ...open.map((r) => receiptActions(ctx, r, showReceipts)),
    );
  };

  const section = h(
    "section",
    { id: "own-addresses", "aria-labelledby": "own-addresses-title" },
    h("h2", { id: "own-addresses-title" }, "Own addresses on TRON"),
    h(
      "p",
      {},
      `Instead of a fresh address per payment, new ${tron} payments can go to a few of your own addresses; each payment's amount is made unique so paygate can tell them apart.`,
      manage ? "" : ctx.roleNote(" Your role can read this; owners and developers can change it and settle receipts."),
    ),
    settingSlot,
    settingActions,
    error,
    h("h3", {}, "Unmatched receipts"),
    h(
      "p",
      {},
      "Money that reached an own address with an amount no open payment expected: assign it to a transaction, or refund it from your wallet and mark it refunded.",
    ),
    receiptsSlot,
  );
  const load = async () => {
    try {
      await Promise.all([showSetting(), showReceipts()]);
    } catch (failure) {
      showError(error, failure);
    }
  };
  return { section, load };
}

function receiptState(r: UnmatchedReceipt): Node | string {
  if (r.state === "assigned" && r.transaction_id) return h("span", {}, "Assigned to ", h("code", {}, r.transaction_id));
  if (r.state === "refunded" && r.refund_tx_hash)
    return h("span", {}, "Refunded in ", h("code", { title: r.refund_tx_hash }, short(r.refund_tx_hash)));
  return RECEIPT_STATES[r.state];
}

/** An open receipt's two actions, each a form whose error is shown next to it. */
function receiptActions(ctx: PageContext, r: UnmatchedReceipt, refresh: () => Promise<void>): HTMLElement {
  const title = `receipt-${r.id}-title`;
  const error = alertSlot(`receipt-${r.id}-error`);
  const transaction = textInput(`receipt-${r.id}-transaction`, "tx_…");
  const assign = h("button", { type: "submit", class: "button" }, "Assign to a transaction");
  const assignForm = h(
    "form",
    { "aria-label": `Assign ${r.amount} ${r.currency}`, novalidate: true },
    field("Transaction id", transaction),
    h("div", { class: "actions" }, assign),
  );
  assignForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void runChange(
      assign,
      error,
      async () => {
        await ctx.api
          .post(ctx.withMode(`/settlement/unmatched-receipts/${r.id}/assign`), { transaction_id: transaction.value.trim() })
          .catch(withFields);
        ctx.announce(`${r.amount} ${r.currency} assigned to ${transaction.value.trim()}`);
        await refresh();
      },
      transaction,
    );
  });
  const hash = textInput(`receipt-${r.id}-refund-hash`, "0x…");
  const refund = h("button", { type: "submit", class: "button secondary" }, "Mark refunded");
  const refundForm = h(
    "form",
    { "aria-label": `Mark ${r.amount} ${r.currency} refunded`, novalidate: true },
    field("Refund transaction hash", hash),
    h("div", { class: "actions" }, refund),
  );
  refundForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void runChange(
      refund,
      error,
      async () => {
        await ctx.api.post(ctx.withMode(`/settlement/unmatched-receipts/${r.id}/refund`), { tx_hash: hash.value.trim() }).catch(withFields);
        ctx.announce(`${r.amount} ${r.currency} marked refunded`);
        await refresh();
      },
      hash,
    );
  });
  return h(
    "section",
    { class: "card receipt-actions", id: `receipt-${r.id}`, "aria-labelledby": title },
    h("h4", { id: title }, `${r.amount} ${r.currency} to `, h("code", { class: "address" }, r.address)),
    assignForm,
    refundForm,
    error,
  );
}

const short = (hash: string) => `${hash.slice(0, 10)}…${hash.slice(-6)}`;

function txLink(network: string, live: boolean, hash: string): Node {
  if (!Object.hasOwn(CHAINS, network)) return h("code", { title: hash }, short(hash));
  return h(
    "a",
    { href: explorerLink(network as NetworkSlug, live, "transaction", hash), target: "_blank", rel: "noopener noreferrer", title: hash },
    h("code", {}, short(hash)),
    h("span", { class: "sr-only" }, " on a block explorer"),
  );
}

/** The sweep plan: owners and developers ask for one (it names every address); nothing moves here. */
export function sweepPlanSection(ctx: PageContext): HTMLElement {
  const live = ctx.mode === "live";
  const intro = h(
    "p",
    { id: "sweep-note" },
    "A plan moves nothing. Sweeping runs on your own machine with the sweep tool (tools/sweep), which signs with your keys; see ",
    h("code", {}, "docs/settlement.md"),
    ", Sweeping fresh addresses.",
  );
  const heading = h("h2", { id: "sweep-title" }, "Sweep plan");
  if (!ctx.can("manage_settlement"))
    return h(
      "section",
      { id: "sweep-plan", "aria-labelledby": "sweep-title" },
      heading,
      intro,
      h("p", {}, ctx.roleNote("Owners and developers can see sweep plans.")),
    );

  const network = h("select", { id: "sweep-network" }, ...SWEEP_NETWORKS.map((n) => h("option", { value: n }, networkName(n, live))));
  const destination = textInput("sweep-destination", "0x… or T…", "sweep-destination-hint");
  const submit = h("button", { type: "submit", class: "button" }, "Show plan");
  const error = alertSlot("sweep-error");
  const result = h("div", { id: "sweep-result" });
  const form = h(
    "form",
    { class: "card", id: "sweep-form", "aria-label": "Sweep plan", novalidate: true },
    field("Network", network),
    field("Destination (optional)", destination, {
      id: "sweep-destination-hint",
      text: "Default: the network's forwarder setting's settlement address.",
    }),
    error,
    h("div", { class: "actions" }, submit),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    replace(result);
    void runChange(
      submit,
      error,
      async () => {
        const query = new URLSearchParams({ network: network.value });
        if (destination.value.trim() !== "") query.set("destination", destination.value.trim());
        const plan = await ctx.api.get<SweepPlan>(ctx.withMode(`/settlement/sweep-plan?${query}`)).catch(withFields);
        replace(result, ...planView(plan));
        ctx.announce(`Sweep plan on ${plan.network_name}: ${plan.addresses.length} addresses`);
      },
      destination,
    );
  });
  return h("section", { id: "sweep-plan", "aria-labelledby": "sweep-title" }, heading, intro, form, result);
}

function planView(plan: SweepPlan): Node[] {
  const fee = plan.fee_coin;
  const summary = h(
    "p",
    { id: "sweep-summary" },
    `${plan.network_name}, to `,
    h("code", { class: "address" }, plan.destination),
    plan.destination_source === "forwarder_setting" ? " (the forwarder setting's address)" : "",
    `: ${plan.addresses.length} address${plan.addresses.length === 1 ? "" : "es"} hold funds (${plan.payments_read} payments read${plan.has_more ? ", more after these" : ""}).`,
  );
  const addresses =
    plan.addresses.length === 0
      ? h("p", { id: "sweep-empty" }, "No address of a settled payment holds funds.")
      : table(
          "The plan's addresses",
          ["Address", "Holds", "Fee", "Top-up", "Sends", "Note"],
          plan.addresses.map((a) => [
            h("code", { class: "address", title: a.derivation_path }, a.address),
            `${a.held} ${a.coin}`,
            `${a.fee.total} ${fee}`,
            `${a.fee.top_up} ${fee}`,
            `${a.to_send} ${a.coin}`,
            a.skipped ?? a.fee.note ?? "",
          ]),
        );
  const totals = table(
    "The plan's totals per coin",
    ["Coin", "Addresses", "Held", "Sent", "Value (USD)"],
    plan.totals.coins.map((c) => [c.coin, String(c.addresses), c.held, c.to_send, c.value_usd ?? "—"]),
  );
  const fees = h(
    "p",
    { id: "sweep-fees" },
    `Fees: ${plan.totals.fees.total} ${fee} (transfers ${plan.totals.fees.transfer}, top-ups ${plan.totals.fees.top_up} plus ${plan.totals.fees.top_up_fee} to send them)`,
    plan.totals.fee_usd === null ? "" : `, ${plan.totals.fee_usd} USD`,
    plan.totals.fee_share_percent === null ? "." : `: ${plan.totals.fee_share_percent} % of the value.`,
  );
  return [summary, addresses, ...(plan.totals.coins.length > 0 ? [totals] : []), fees];
}

// Settlement (issue 40; docs/settlement.md): per EVM network of the mode, whether new payments go to
// deposit forwarders and to which settlement address, or to the merchant's own addresses; the flushes
// that moved forwarders' funds, with their transaction on an explorer, and "Flush now". Owners and
// developers set and remove a setting (with a recent password: it names where money goes) and flush;
// other roles read. The server checks every rule again and names the refused field. TRON's own
// addresses, unmatched receipts and sweep plans are settlement-addresses.ts's sections of this page.
import type { components } from "../../../sdk/src/generated/openapi.ts";
import { EVM_CHAINS, type EvmNetworkSlug, explorerLink } from "../../../src/core/networks.ts";
import { h, replace } from "../../shared/dom.ts";
import { ApiError } from "../api.ts";
import type { PageContext } from "../context.ts";
import { alertSlot, field, modeLabel, runChange, showError, table, when } from "./parts.ts";
import { ownAddressSection, sweepPlanSection } from "./settlement-addresses.ts";

// As REST shows them (the OpenAPI document, through the SDK's generated types).
type ForwarderSetting = components["schemas"]["ForwarderSetting"];
type Flush = components["schemas"]["Flush"];

/** The operator's fee payer on a network in this mode, as the dashboard's API gives it. */
interface FeePayer {
  network: string;
  address: string | null;
  balance: string | null;
  low: boolean | null;
  problem: string | null;
}

const NETWORKS = Object.keys(EVM_CHAINS) as EvmNetworkSlug[];
const FLUSH_STATES: Record<Flush["state"], string> = { sending: "Sending", confirmed: "Confirmed", failed: "Failed" };

const networkName = (slug: string, live: boolean): string =>
  Object.hasOwn(EVM_CHAINS, slug) ? EVM_CHAINS[slug as EvmNetworkSlug][live ? "live" : "test"].name : slug;

export async function renderSettlement(ctx: PageContext, main: HTMLElement): Promise<void> {
  const live = ctx.mode === "live";
  const manage = ctx.can("manage_settlement");
  const settingsSlot = h("div", { id: "forwarder-settings" });
  const flushesSlot = h("div", { id: "flushes" });
  const feePayersSlot = h("div", { id: "fee-payers" });
  const error = alertSlot("settlement-error");
  const own = ownAddressSection(ctx);

  const showSettings = async () => {
    const { forwarders } = await ctx.api.get<{ forwarders: ForwarderSetting[] }>(ctx.withMode("/settlement/forwarders"));
    const byNetwork = new Map(forwarders.map((s) => [s.network, s]));
    const rows = NETWORKS.map((network) => {
      const setting = byNetwork.get(network);
      const remove = setting && manage ? removeButton(network) : null;
      return [
        networkName(network, live),
        setting ? h("span", {}, "Forwarders to ", h("code", { class: "address" }, setting.destination)) : "Off: the merchant's own addresses",
        setting ? h("time", { datetime: setting.updated_at }, when(setting.updated_at)) : "—",
        ...(manage ? [remove ?? ""] : []),
      ];
    });
    replace(
      settingsSlot,
      table(`Deposit forwarders (${modeLabel(ctx.mode)})`, ["Network", "Where new payments go", "Changed", ...(manage ? ["Action"] : [])], rows),
    );
  };

  const removeButton = (network: EvmNetworkSlug) => {
    const button = h("button", { type: "button", class: "button secondary", "data-network": network }, `Turn off on ${networkName(network, live)}`);
    button.addEventListener("click", () => {
      void runChange(button, error, async () => {
        await ctx.api.delete(ctx.withMode(`/settlement/forwarders/${network}`));
        ctx.announce(`Forwarders turned off on ${networkName(network, live)}: new payments go to your own addresses`);
        await showSettings();
      });
    });
    return button;
  };

  const showFeePayers = async () => {
    const { fee_payers } = await ctx.api.get<{ fee_payers: FeePayer[] }>(ctx.withMode("/settlement/fee-payers"));
    const rows = fee_payers.map((p) => [
      networkName(p.network, live),
      p.address ? h("code", {}, p.address) : "—",
      p.balance ?? "—",
      feePayerState(p),
    ]);
    replace(feePayersSlot, table(`Fee payers (${modeLabel(ctx.mode)})`, ["Network", "Fee payer", "Balance", "State"], rows));
  };

  const showFlushes = async () => {
    const { flushes } = await ctx.api.get<{ flushes: Flush[]; has_more: boolean }>(ctx.withMode("/settlement/flushes?limit=25"));
    const rows = flushes.map((f) => [
      h("time", { datetime: f.created_at }, when(f.created_at)),
      FLUSH_STATES[f.state],
      networkName(f.network, live),
      hashLink(f, live),
      String(f.payments.length),
      f.gas_used ?? "—",
      f.fee ?? "—",
    ]);
    replace(
      flushesSlot,
      rows.length > 0
        ? table(`Flushes (${modeLabel(ctx.mode)}), newest first`, ["Created", "State", "Network", "Transaction", "Payments", "Gas", "Fee"], rows)
        : h("p", { id: "no-flushes" }, `No flushes in ${modeLabel(ctx.mode)} yet.`),
    );
  };

  replace(
    main,
    h("h1", {}, "Settlement"),
    h(
      "p",
      { class: "lead" },
      `On EVM networks in ${modeLabel(ctx.mode)}, new payments can go to deposit forwarders that only ever send to your settlement address; paygate's fee payer flushes them.`,
      manage ? "" : ctx.roleNote(" Your role can read this; owners and developers can change it and flush."),
    ),
    h("h2", {}, "Deposit forwarders"),
    settingsSlot,
    error,
    manage ? settingForm(ctx, live, showSettings) : null,
    h("h2", {}, "Fee payers"),
    h("p", {}, "The operator's account that pays the gas of flushes, in the network's coin."),
    feePayersSlot,
    h("h2", {}, "Flushes"),
    manage ? flushForm(ctx, live, showFlushes) : null,
    flushesSlot,
    own.section,
    sweepPlanSection(ctx),
  );
  try {
    await Promise.all([showSettings(), showFlushes(), showFeePayers(), own.load()]);
  } catch (failure) {
    showError(error, failure);
  }
}

function networkSelect(id: string, live: boolean): HTMLSelectElement {
  return h("select", { id }, ...NETWORKS.map((n) => h("option", { value: n }, networkName(n, live))));
}

/** Set a network's settlement address: the server checks it (an address of that network, not the zero address). */
function settingForm(ctx: PageContext, live: boolean, refresh: () => Promise<void>): HTMLElement {
  const error = alertSlot("forwarder-error");
  const network = networkSelect("forwarder-network", live);
  const destination = h("input", {
    id: "forwarder-destination",
    type: "text",
    autocomplete: "off",
    spellcheck: "false",
    class: "wide",
    placeholder: "0x…",
  });
  const submit = h("button", { type: "submit", class: "button" }, "Use forwarders");
  const form = h(
    "form",
    { class: "card", id: "forwarder-form", "aria-labelledby": "forwarder-form-title", novalidate: true },
    h("h3", { id: "forwarder-form-title" }, "Send new payments to forwarders"),
    field("Network", network),
    field("Settlement address", destination, { id: "forwarder-destination-hint", text: "Forwarders send only to this address: check it twice." }),
    error,
    h("div", { class: "actions" }, submit),
  );
  destination.setAttribute("aria-describedby", "forwarder-destination-hint");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void runChange(
      submit,
      error,
      async () => {
        await ctx.api.post(ctx.withMode(`/settlement/forwarders/${network.value}`), { destination: destination.value.trim() }).catch(withFields);
        ctx.announce(`New payments on ${networkName(network.value, live)} go to forwarders`);
        destination.value = "";
        await refresh();
      },
      destination,
    );
  });
  return form;
}

/** "Flush now": the network's settled forwarders in one transaction of the fee payer. */
function flushForm(ctx: PageContext, live: boolean, refresh: () => Promise<void>): HTMLElement {
  const error = alertSlot("flush-error");
  const network = networkSelect("flush-network", live);
  const submit = h("button", { type: "submit", class: "button", id: "flush-now" }, "Flush now");
  const form = h(
    "form",
    { class: "card", id: "flush-form", "aria-label": "Flush now", novalidate: true },
    field("Network", network),
    error,
    h("div", { class: "actions" }, submit),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void runChange(submit, error, async () => {
      const flush = await ctx.api.post<Flush>(ctx.withMode("/settlement/flushes"), { network: network.value });
      ctx.announce(`Flush sent on ${networkName(flush.network, live)}: ${flush.payments.length} payments`);
      await refresh();
    });
  });
  return form;
}

function hashLink(f: Flush, live: boolean): Node {
  const short = `${f.tx_hash.slice(0, 10)}…${f.tx_hash.slice(-6)}`;
  if (!Object.hasOwn(EVM_CHAINS, f.network)) return h("code", { title: f.tx_hash }, short);
  const href = explorerLink(f.network as EvmNetworkSlug, live, "transaction", f.tx_hash);
  return h(
    "a",
    { href, target: "_blank", rel: "noopener noreferrer", title: f.tx_hash },
    h("code", {}, short),
    h("span", { class: "sr-only" }, " on a block explorer"),
  );
}

/** A refusal that names fields says what is wrong with each ("destination is not an address of …"), not only that something is. */
function withFields(error: unknown): never {
  if (error instanceof ApiError && error.fields.length > 0) {
    throw new ApiError(error.fields.map((f) => f.message).join("; "), error.code, error.status, error.reason, error.fields);
  }
  throw error;
}

function feePayerState(p: FeePayer): Node | string {
  if (p.problem !== null) return h("span", {}, `Unavailable: ${p.problem}`);
  if (p.low === null) return "Not configured";
  return p.low ? h("strong", {}, "Too low: flushes may fail") : "Enough";
}

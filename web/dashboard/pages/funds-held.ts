// Funds held: what each handed-out payment address holds now, read from the chain nodes, with the
// fee coin moving a token off it needs (ETH, BNB, TRX) and whether it holds any. A filter by network,
// and an export of the list as CSV. Read-only, for every role.
import { h, replace } from "../../shared/dom.ts";
import type { PageContext } from "../context.ts";
import { alertSlot, modeLabel, showError, table } from "./parts.ts";

interface HeldFunds {
  transaction_id: string;
  address: string;
  currency: string;
  network: string;
  network_name: string;
  standard: string | null;
  held: string | null;
  fee_coin: string;
  fee_coin_held: string | null;
  needs_fee_coin: boolean;
  explorer_url: string;
  error: string | null;
}

interface CoinNetwork {
  network: string;
  network_name: string;
}

export async function renderFundsHeld(ctx: PageContext, main: HTMLElement): Promise<void> {
  const networks = await ctx.api.get<CoinNetwork[]>(ctx.withMode("/networks"));
  const names = new Map(networks.map((n) => [n.network, n.network_name]));
  const filter = h(
    "select",
    { id: "funds-network", name: "network" },
    h("option", { value: "" }, "All networks"),
    ...[...names].map(([network, name]) => h("option", { value: network }, name)),
  );
  const exportLink = h("a", { class: "button secondary", id: "funds-export", download: "" }, "Export CSV");
  const alert = alertSlot("funds-error");
  const summary = h("p", { id: "funds-summary", role: "status" });
  const list = h("div", {});
  const load = async () => {
    const query = filter.value ? `?${new URLSearchParams({ network: filter.value })}` : "";
    exportLink.setAttribute("href", `/dashboard/api${ctx.withMode(`/funds-held.csv${query}`)}`);
    replace(alert);
    summary.textContent = "Reading the balances from the chain nodes…";
    try {
      const rows = await ctx.api.get<HeldFunds[]>(ctx.withMode(`/funds-held${query}`));
      const needing = rows.filter((r) => r.needs_fee_coin).length;
      summary.textContent =
        rows.length === 0
          ? `No ${modeLabel(ctx.mode)} payment addresses handed out${filter.value ? ` on ${names.get(filter.value) ?? filter.value}` : ""}.`
          : `${rows.length} address${rows.length === 1 ? "" : "es"}; ${needing} need${needing === 1 ? "s" : ""} the fee coin before the token can be moved.`;
      replace(
        list,
        rows.length === 0
          ? ""
          : table(
              `Funds held (${modeLabel(ctx.mode)})`,
              ["Address", "Network", "Held", "Fee coin held", "Note"],
              rows.map((r) => [
                h("a", { href: r.explorer_url, rel: "noopener noreferrer", target: "_blank" }, h("code", {}, r.address)),
                r.standard ? `${r.network_name} (${r.standard})` : r.network_name,
                r.held === null ? "Unknown" : `${r.held} ${r.currency}`,
                r.fee_coin_held === null ? "Unknown" : `${r.fee_coin_held} ${r.fee_coin}`,
                r.error ? `Could not read: ${r.error}` : r.needs_fee_coin ? h("strong", {}, `Needs ${r.fee_coin} to move the ${r.currency}`) : "",
              ]),
            ),
      );
    } catch (error) {
      summary.textContent = "";
      showError(alert, error);
    }
  };
  filter.addEventListener("change", () => void load());
  replace(
    main,
    h("h1", {}, "Funds held"),
    h(
      "p",
      { class: "lead" },
      `What each ${modeLabel(ctx.mode)} payment address holds now. Every payment gets a fresh address of your wallet, so payments stay there until your wallet moves them. `,
      "Moving a token (USDT) off an address costs a fee in the network's own coin (ETH on Ethereum, BNB on BNB Smart Chain, TRX on TRON), which a fresh address does not hold: send it some first.",
    ),
    h("div", { class: "field" }, h("label", { for: "funds-network" }, "Network"), filter),
    h("p", {}, exportLink, h("span", { class: "hint" }, " the list below as CSV")),
    alert,
    summary,
    list,
  );
  await load();
}

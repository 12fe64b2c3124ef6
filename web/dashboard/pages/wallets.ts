// Wallets, per coin and mode: the key in use (shortened), the next address index and the gap-limit
// warning; setting a key is two steps: Preview shows the first three addresses it will hand out (to
// compare with the merchant's own wallet), then Confirm saves it. A viewer reads the list only.
import { h, replace } from "../../shared/dom.ts";
import type { PageContext } from "../context.ts";
import { alertSlot, field, modeLabel, runChange, table } from "./parts.ts";

interface Wallet {
  currency: string;
  network: string;
  network_name: string;
  extended_public_key: string | null;
  next_index: number | null;
  unpaid_at_end: number;
  gap_warning: string | null;
}

/** A coin on a network, as the service's networks table names it (GET /networks). */
interface CoinNetwork {
  currency: string;
  network: string;
  network_name: string;
  standard: string | null;
}

interface Preview {
  currency: string;
  network: string;
  extended_public_key: string;
  addresses: { index: number; address: string }[];
}

export async function renderWallets(ctx: PageContext, main: HTMLElement): Promise<void> {
  const manage = ctx.can("manage_wallets");
  const list = h("div", {});
  const warnings = h("div", {});
  const reload = async (): Promise<Wallet[]> => {
    const wallets = await ctx.api.get<Wallet[]>(ctx.withMode("/wallets"));
    replace(
      list,
      table(
        `Wallets (${modeLabel(ctx.mode)})`,
        ["Coin", "Network", "Extended public key", "Next address number", "Unpaid addresses since the last payment"],
        wallets.map((w) => [
          w.currency,
          w.network_name,
          w.extended_public_key ? h("code", {}, w.extended_public_key) : "Not set",
          w.next_index === null ? "—" : String(w.next_index),
          String(w.unpaid_at_end),
        ]),
      ),
    );
    replace(
      warnings,
      ...wallets
        .filter((w) => w.gap_warning)
        .map((w) => h("p", { class: "alert" }, `${w.currency}${several(wallets, w) ? ` on ${w.network_name}` : ""}: ${w.gap_warning}`)),
    );
    return wallets;
  };
  const form = h("div", {});
  replace(
    main,
    h("h1", {}, "Wallets"),
    h(
      "p",
      { class: "lead" },
      `The extended public keys that ${modeLabel(ctx.mode)} payments are paid to: each payment gets the key's next address.`,
      manage ? "" : ctx.roleNote(" Your role can read them; a developer or an owner can set them."),
    ),
    warnings,
    list,
    form,
  );
  // The coins and their networks are the service's (its networks table).
  await reload();
  const defaults = h("div", {});
  main.insertBefore(defaults, form);
  const reloadDefaults = async () => replace(defaults, await defaultNetworksSection(ctx, reloadDefaults));
  await reloadDefaults();
  // A wallet set on a network makes that network choosable as the default.
  const reloadAll = async () => {
    const wallets = await reload();
    await reloadDefaults();
    return wallets;
  };
  if (manage) replace(form, setForm(ctx, await ctx.api.get<CoinNetwork[]>(ctx.withMode("/networks")), reloadAll));
}

/** A coin paid on several networks, with the network a request naming none is paid on (GET /default-networks). */
interface DefaultNetworkChoice {
  currency: string;
  network: string;
  chosen: boolean;
  networks: { network: string; network_name: string; standard: string | null; has_wallet: boolean }[];
}

const networkLabel = (n: DefaultNetworkChoice["networks"][number]) => (n.standard ? `${n.network_name} (${n.standard})` : n.network_name);

/**
 * Per coin paid on several networks: its default network in the mode. The owner picks it (only
 * networks with a wallet can be picked; the service refuses others too); other roles read it.
 */
async function defaultNetworksSection(ctx: PageContext, reload: () => Promise<void>): Promise<HTMLElement> {
  const choices = await ctx.api.get<DefaultNetworkChoice[]>(ctx.withMode("/default-networks"));
  const manage = ctx.can("manage_default_networks");
  const current = (c: DefaultNetworkChoice) => c.networks.find((n) => n.network === c.network);
  return h(
    "section",
    { class: "card", "aria-labelledby": "default-networks-title" },
    h("h2", { id: "default-networks-title" }, `Default networks (${modeLabel(ctx.mode)})`),
    h(
      "p",
      { class: "hint" },
      "The network a coin is paid on when a payment request names none; at the checkout it is offered first.",
      manage ? "" : ctx.roleNote(" Your role can read them; an owner can change them."),
    ),
    ...choices.map((choice) =>
      manage
        ? defaultNetworkForm(ctx, choice, reload)
        : h(
            "p",
            { id: `default-network-${choice.currency}` },
            `${choice.currency}: ${current(choice) ? networkLabel(current(choice) as DefaultNetworkChoice["networks"][number]) : choice.network}`,
          ),
    ),
  );
}

function defaultNetworkForm(ctx: PageContext, choice: DefaultNetworkChoice, reload: () => Promise<void>): HTMLElement {
  const id = `default-network-${choice.currency}`;
  const error = alertSlot(`${id}-error`);
  const select = h(
    "select",
    { id, name: "network", "aria-describedby": `${id}-hint ${id}-error` },
    ...choice.networks.map((n) =>
      h(
        "option",
        { value: n.network, selected: n.network === choice.network, disabled: !n.has_wallet && n.network !== choice.network },
        n.has_wallet ? networkLabel(n) : `${networkLabel(n)}: no wallet set`,
      ),
    ),
  );
  const save = h("button", { type: "submit", class: "button" }, "Save");
  const form = h(
    "form",
    { class: "inline-form", novalidate: true },
    h("div", { class: "field" }, h("label", { for: id }, `Default network for ${choice.currency}`), select),
    h("p", { class: "hint", id: `${id}-hint` }, "A network can be the default once a wallet is set on it (above)."),
    error,
    save,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void runChange(
      save,
      error,
      async () => {
        const saved = await ctx.api.request<DefaultNetworkChoice[]>("PUT", ctx.withMode(`/default-networks/${encodeURIComponent(choice.currency)}`), {
          network: select.value,
        });
        const now = saved.find((c) => c.currency === choice.currency);
        const picked = now?.networks.find((n) => n.network === now.network);
        await reload();
        const notice = document.getElementById("default-networks-saved");
        const message = `${choice.currency} is now paid on ${picked ? networkLabel(picked) : select.value} when a request names no network.`;
        const shown = h("p", { class: "notice", id: "default-networks-saved", tabindex: "-1", role: "status" }, message);
        if (notice) notice.replaceWith(shown);
        else document.getElementById("default-networks-title")?.after(shown);
        shown.focus();
        ctx.announce(message);
      },
      select,
    );
  });
  return form;
}

/** Whether the wallet's coin has wallets on several networks in the list. */
const several = (wallets: Wallet[], w: Wallet) => wallets.filter((o) => o.currency === w.currency).length > 1;

function setForm(ctx: PageContext, networks: CoinNetwork[], reload: () => Promise<unknown>): HTMLElement {
  const error = alertSlot("wallet-key-error");
  const step = h("div", {});
  const coins = [...new Set(networks.map((n) => n.currency))];
  const coin = h("select", { id: "wallet-coin", name: "currency" }, ...coins.map((c) => h("option", { value: c }, c)));
  // The coin's networks, its default first; a wallet receives on one network.
  const network = h("select", { id: "wallet-network", name: "network", "aria-describedby": "wallet-network-hint" });
  const fillNetworks = () =>
    replace(
      network,
      ...networks
        .filter((n) => n.currency === coin.value)
        .map((n) => h("option", { value: n.network }, n.standard ? `${n.network_name} (${n.standard})` : n.network_name)),
    );
  fillNetworks();
  const key = h("input", {
    id: "wallet-key",
    name: "extended_public_key",
    type: "text",
    class: "wide",
    autocomplete: "off",
    spellcheck: "false",
    "aria-describedby": "wallet-key-hint wallet-key-error",
  });
  const preview = h("button", { type: "submit", class: "button" }, "Preview");
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "wallet-title", novalidate: true },
    h("h2", { id: "wallet-title" }, `Set a wallet (${modeLabel(ctx.mode)})`),
    h("div", { class: "field" }, h("label", { for: "wallet-coin" }, "Coin"), coin),
    field("Network", network, { id: "wallet-network-hint", text: "Payments on any other network never reach this wallet's addresses." }),
    field(
      "Account extended public key",
      key,
      {
        id: "wallet-key-hint",
        text: ctx.mode === "live" ? "A mainnet key (xpub, ypub, zpub…), never a private key." : "A testnet key (tpub, vpub…), never a private key.",
      },
      error,
    ),
    preview,
    step,
  );
  const reset = () => {
    replace(step);
    key.removeAttribute("aria-invalid");
  };
  coin.addEventListener("change", () => {
    fillNetworks();
    reset();
  });
  network.addEventListener("change", reset);
  key.addEventListener("input", reset);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void runChange(
      preview,
      error,
      async () => {
        reset();
        const shown = await ctx.api.post<Preview>(ctx.withMode("/wallets/preview"), {
          currency: coin.value,
          network: network.value,
          extended_public_key: key.value,
        });
        showPreview(ctx, step, shown, { error, key, reload });
      },
      key,
    ).then(() => {
      if (error.childElementCount > 0) key.setAttribute("aria-invalid", "true");
    });
  });
  return form;
}

function showPreview(
  ctx: PageContext,
  step: HTMLElement,
  shown: Preview,
  parts: { error: HTMLElement; key: HTMLInputElement; reload: () => Promise<unknown> },
): void {
  const heading = h("h3", { tabindex: "-1", id: "preview-title" }, `Compare these ${shown.currency} addresses with your wallet`);
  const confirm = h("button", { type: "button", class: "button" }, "Confirm");
  const cancel = h("button", { type: "button", class: "button secondary" }, "Cancel");
  cancel.addEventListener("click", () => {
    replace(step);
    parts.key.focus();
  });
  confirm.addEventListener("click", () => {
    void runChange(confirm, parts.error, async () => {
      await ctx.api.request("PUT", ctx.withMode(`/wallets/${encodeURIComponent(shown.currency)}`), {
        network: shown.network,
        extended_public_key: shown.extended_public_key,
      });
      parts.key.value = "";
      const saved = h("p", { class: "notice", tabindex: "-1", id: "wallet-saved" }, `The ${shown.currency} wallet is set.`);
      replace(step, saved);
      saved.focus();
      await parts.reload();
    });
  });
  replace(
    step,
    h(
      "section",
      { class: "card", "aria-labelledby": "preview-title" },
      heading,
      h("p", {}, "Your wallet should show the same addresses, in this order. If it does not, cancel: payments would go elsewhere."),
      h(
        "ol",
        { class: "addresses", id: "preview-addresses" },
        ...shown.addresses.map((a) => h("li", {}, h("code", {}, a.address), ` (index ${a.index})`)),
      ),
      h("div", { class: "actions" }, confirm, cancel),
    ),
  );
  heading.focus();
}

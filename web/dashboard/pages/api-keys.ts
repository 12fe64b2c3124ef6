// API keys, per mode: the list (prefix, kind, status, created, expires) and rolling a key, with the
// keys it replaces valid now / 1 h / 24 h more. The new key is shown once. A viewer reads the list.
import { h, replace } from "../../shared/dom.ts";
import type { PageContext } from "../context.ts";
import { alertSlot, modeLabel, runChange, secretCard, table, when } from "./parts.ts";

interface ApiKey {
  id: number;
  kind: "public" | "secret";
  prefix: string;
  status: "active" | "expiring" | "expired" | "revoked";
  created_at: string;
  expires_at: string | null;
}

interface Rolled {
  kind: string;
  key: string;
  prefix: string;
  replaced: { prefix: string; expires_at: string }[];
}

const STATUS: Record<ApiKey["status"], string> = { active: "Active", expiring: "Expiring", expired: "Expired", revoked: "Revoked" };

export async function renderApiKeys(ctx: PageContext, main: HTMLElement): Promise<void> {
  const manage = ctx.can("manage_keys");
  const list = h("div", {});
  const reload = async () => {
    const keys = await ctx.api.get<ApiKey[]>(ctx.withMode("/api-keys"));
    replace(
      list,
      table(
        `API keys (${modeLabel(ctx.mode)})`,
        ["Prefix", "Kind", "Status", "Created", "Expires"],
        keys.map((k) => [
          h("code", {}, k.prefix),
          k.kind === "public" ? "Public" : "Secret",
          STATUS[k.status],
          when(k.created_at),
          when(k.expires_at),
        ]),
      ),
    );
  };
  replace(
    main,
    h("h1", {}, "API keys"),
    h(
      "p",
      { class: "lead" },
      `The keys of ${modeLabel(ctx.mode)}. A secret key is shown only when it is made; the list shows its first characters.`,
      manage ? "" : ctx.roleNote(" Your role can read the list; a developer or an owner can roll keys."),
    ),
    manage ? rollForm(ctx, reload) : null,
    h("h2", {}, "Keys"),
    list,
  );
  await reload();
}

function rollForm(ctx: PageContext, reload: () => Promise<void>): HTMLElement {
  const error = alertSlot();
  const shown = h("div", {});
  const kind = h(
    "select",
    { id: "roll-kind", name: "kind" },
    h("option", { value: "secret" }, "Secret key"),
    h("option", { value: "public" }, "Public key"),
  );
  const oldExpires = h(
    "select",
    { id: "roll-old-expires", name: "old_expires" },
    h("option", { value: "now" }, "Stops now"),
    h("option", { value: "1h", selected: true }, "Works 1 more hour"),
    h("option", { value: "24h" }, "Works 24 more hours"),
  );
  const submit = h("button", { type: "submit", class: "button" }, "Roll the key");
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "roll-title", novalidate: true },
    h("h2", { id: "roll-title" }, `Roll a key (${modeLabel(ctx.mode)})`),
    h("div", { class: "field" }, h("label", { for: "roll-kind" }, "Key"), kind),
    h(
      "div",
      { class: "field" },
      h("label", { for: "roll-old-expires" }, "The old key"),
      oldExpires,
      h("p", { class: "hint" }, "Give it time to switch your servers to the new key without refused requests."),
    ),
    submit,
    error,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const label = kind.value === "secret" ? "secret key" : "public key";
    if (!window.confirm(`Roll the ${modeLabel(ctx.mode)} ${label}? A new key is made and shown once.`)) return;
    void runChange(submit, error, async () => {
      const rolled = await ctx.api.post<Rolled>(ctx.withMode("/api-keys/roll"), { kind: kind.value, old_expires: oldExpires.value });
      const ends = rolled.replaced.map((old) => `${old.prefix}… works until ${when(old.expires_at)}`).join("; ");
      const { card, heading } = secretCard(
        "new-api-key",
        `New ${label}`,
        rolled.key,
        `Store it where your servers read it. ${ends ? `The old key: ${ends}.` : ""}`,
      );
      replace(shown, card);
      heading.focus();
      await reload();
    });
  });
  return h("div", {}, form, shown);
}

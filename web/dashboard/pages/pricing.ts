// Pricing: the merchant's spread (percent taken off the market rate in its favour at initiate) and
// its choice of live price providers and their order. Every role reads it; owners change it (the
// service checks the bounds and the providers, its message shown next to the form; each change is
// in the audit log).
import { h, replace } from "../../shared/dom.ts";
import type { PageContext } from "../context.ts";
import { alertSlot, field, runChange } from "./parts.ts";

interface Pricing {
  spread_percent: string;
  sources: string[];
  available_sources: string[];
  minimum_sources: number;
  spread_bounds: { min: string; max: string };
}

export async function renderPricing(ctx: PageContext, main: HTMLElement): Promise<void> {
  const manage = ctx.can("manage_pricing");
  const pricing = await ctx.api.get<Pricing>("/pricing");
  const summary = h("dl", { class: "fields", id: "pricing-summary" });
  const show = (p: Pricing) =>
    replace(
      summary,
      h("dt", {}, "Spread"),
      h("dd", { id: "pricing-spread" }, `${p.spread_percent}%`),
      h("dt", {}, "Price providers"),
      h(
        "dd",
        { id: "pricing-sources" },
        p.sources.length > 0 ? p.sources.join(", ") : `The operator's (${p.available_sources.join(", ") || "none"})`,
      ),
    );
  show(pricing);
  replace(
    main,
    h("h1", {}, "Pricing"),
    h(
      "p",
      { class: "lead" },
      "The spread is taken off the market rate when a payment's rate is locked, so the customer sends that much more coin: your margin. " +
        "The price providers set the market rate of live payments (test payments use the test rates).",
      manage ? "" : ctx.roleNote(" Your role can read the pricing; an owner can change it."),
    ),
    h("section", { class: "card", "aria-labelledby": "pricing-now" }, h("h2", { id: "pricing-now" }, "Now"), summary),
    manage ? pricingForm(ctx, pricing, show) : null,
  );
}

function pricingForm(ctx: PageContext, current: Pricing, show: (p: Pricing) => void): HTMLElement {
  const error = alertSlot("pricing-error");
  const spread = h("input", {
    id: "pricing-spread-input",
    name: "spread",
    type: "text",
    inputmode: "decimal",
    value: current.spread_percent,
    autocomplete: "off",
    "aria-describedby": "pricing-spread-hint pricing-error",
  });
  const sources = h("input", {
    id: "pricing-sources-input",
    name: "sources",
    type: "text",
    value: current.sources.join(", "),
    autocomplete: "off",
    spellcheck: "false",
    "aria-describedby": "pricing-sources-hint pricing-error",
  });
  const save = h("button", { type: "submit", class: "button" }, "Save pricing");
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "pricing-change", novalidate: true },
    h("h2", { id: "pricing-change" }, "Change the pricing"),
    field("Spread (percent)", spread, {
      id: "pricing-spread-hint",
      text: `From ${current.spread_bounds.min} to ${current.spread_bounds.max}, e.g. 1.5. 0: the market rate as it is.`,
    }),
    field("Price providers, in order (comma-separated)", sources, {
      id: "pricing-sources-hint",
      text:
        `Available: ${current.available_sources.join(", ") || "none"}` +
        (current.minimum_sources > 1 ? `; name at least ${current.minimum_sources}` : "") +
        ". Leave it empty for the operator's.",
    }),
    error,
    save,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void runChange(
      save,
      error,
      async () => {
        const names = sources.value
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== "");
        const saved = await ctx.api.request<Pricing>("PUT", "/pricing", {
          spread: spread.value.trim() === "" ? null : spread.value.trim(),
          sources: names,
        });
        spread.value = saved.spread_percent;
        sources.value = saved.sources.join(", ");
        show(saved);
        ctx.announce("Pricing saved");
      },
      spread,
    );
  });
  return form;
}

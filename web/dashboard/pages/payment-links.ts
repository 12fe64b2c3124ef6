// Payment links, per mode: the list (status, created, the transactions each started), creating one
// and deactivating one (after a confirmation). A viewer reads the list only.
import { h, replace } from "../../shared/dom.ts";
import type { PageContext } from "../context.ts";
import { alertSlot, modeLabel, runChange, table, when } from "./parts.ts";

interface PaymentLink {
  slug: string;
  active: boolean;
  created_at: string;
  transaction_count: number;
}

export async function renderPaymentLinks(ctx: PageContext, main: HTMLElement): Promise<void> {
  const manage = ctx.can("manage_payment_links");
  const error = alertSlot();
  const list = h("div", {});
  const created = h("div", {});
  const reload = async () => {
    const links = await ctx.api.get<PaymentLink[]>(ctx.withMode("/payment-links"));
    replace(
      list,
      links.length === 0
        ? h("p", {}, `No payment links in ${modeLabel(ctx.mode)} yet.`)
        : table(
            `Payment links (${modeLabel(ctx.mode)})`,
            manage ? ["Link", "Status", "Created", "Transactions", "Actions"] : ["Link", "Status", "Created", "Transactions"],
            links.map((link) => [
              h("code", {}, link.slug),
              link.active ? "Active" : "Deactivated",
              when(link.created_at),
              String(link.transaction_count),
              ...(manage ? [link.active ? deactivateButton(ctx, link, { error, notice: created, reload }) : "—"] : []),
            ]),
          ),
    );
  };
  const create = h("button", { type: "button", class: "button" }, "Create a payment link");
  create.addEventListener("click", () => {
    void runChange(create, error, async () => {
      const link = await ctx.api.post<{ slug: string }>(ctx.withMode("/payment-links"));
      await reload();
      showNotice(created, `Payment link ${link.slug} created.`);
    });
  });
  replace(
    main,
    h("h1", {}, "Payment links"),
    h(
      "p",
      { class: "lead" },
      `Links that start a ${modeLabel(ctx.mode)} payment without an integration.`,
      manage ? "" : ctx.roleNote(" Your role can read them; an owner can create and deactivate them."),
    ),
    error,
    manage ? h("div", {}, create) : null,
    created,
    list,
  );
  await reload();
}

/** Says what a change did where the page's controls are, and moves focus there (the button that was pressed may be gone). */
function showNotice(slot: HTMLElement, message: string): void {
  const notice = h("p", { class: "notice", tabindex: "-1", id: "link-notice" }, message);
  replace(slot, notice);
  notice.focus();
}

function deactivateButton(
  ctx: PageContext,
  link: PaymentLink,
  slots: { error: HTMLElement; notice: HTMLElement; reload: () => Promise<void> },
): HTMLElement {
  const button = h("button", { type: "button", class: "button danger" }, "Deactivate", h("span", { class: "sr-only" }, ` ${link.slug}`));
  button.addEventListener("click", () => {
    if (!window.confirm(`Deactivate payment link ${link.slug}? It stops starting payments; those it started go on.`)) return;
    void runChange(button, slots.error, async () => {
      await ctx.api.post(`/payment-links/${encodeURIComponent(link.slug)}/deactivate`);
      await slots.reload();
      showNotice(slots.notice, `Payment link ${link.slug} is deactivated: it starts no more payments.`);
    });
  });
  return button;
}

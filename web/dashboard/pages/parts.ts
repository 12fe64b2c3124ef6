// Pieces the management pages share: an error next to a field, a secret shown once with a copy
// button, a run-a-change helper (disable, clear, report) and dates as the reader's locale writes them:
// every moment the dashboard shows goes through `when`, every UTC day through `day`, so all read alike.
import { copyText } from "../../shared/clipboard.ts";
import { h, replace } from "../../shared/dom.ts";
import { messageOf } from "../api.ts";

/** A moment as the reader's locale writes it, in one style everywhere: "Nov 26, 2026, 10:57 AM"; "—" for none. */
export const when = (iso: string | null): string =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "—";

/** A UTC day (YYYY-MM-DD) in the same style as `when`'s date: "Nov 26, 2026". */
export const day = (utcDay: string): string =>
  new Date(`${utcDay}T00:00:00Z`).toLocaleDateString(undefined, { dateStyle: "medium", timeZone: "UTC" });

export const modeLabel = (mode: string): string => (mode === "live" ? "live mode" : "test mode");

/** An error slot that screen readers announce (role=alert); empty until something fails. */
export const alertSlot = (id?: string): HTMLElement => h("div", { class: "alert-slot", role: "alert", id });

export function showError(slot: HTMLElement, error: unknown): void {
  replace(slot, h("p", { class: "alert" }, messageOf(error)));
}

/**
 * Runs a change from a control: the control is disabled meanwhile, the error slot cleared first
 * and filled (with focus back on `focusOnError`) if it fails.
 */
export async function runChange(
  control: HTMLButtonElement,
  errorSlot: HTMLElement,
  change: () => Promise<void>,
  focusOnError?: HTMLElement,
): Promise<void> {
  replace(errorSlot);
  control.disabled = true;
  try {
    await change();
  } catch (error) {
    showError(errorSlot, error);
    (focusOnError ?? control).focus();
  } finally {
    control.disabled = false;
  }
}

/**
 * A form field as every page lays it out: the label for `control` (by its id), the control, a hint (the id
 * the control's aria-describedby names), then anything after it (an error slot).
 */
export function field(label: string, control: HTMLElement, hint: { id: string; text: string } | null = null, ...after: (Node | null)[]): HTMLElement {
  return h(
    "div",
    { class: "field" },
    h("label", { for: control.id }, label),
    control,
    hint && h("p", { class: "hint", id: hint.id }, hint.text),
    ...after,
  );
}

/** A secret the service shows this once (it keeps only its hash or sealed copy): a read-only field, a copy button, what to do. */
export function secretCard(id: string, title: string, secret: string, note: string): { card: HTMLElement; heading: HTMLElement } {
  const status = h("span", { role: "status" });
  const heading = h("h2", { tabindex: "-1", id: `${id}-title` }, title);
  const field = h("input", {
    id,
    type: "text",
    readonly: true,
    value: secret,
    class: "secret",
    "aria-describedby": `${id}-note`,
    spellcheck: "false",
  });
  const card = h(
    "section",
    { class: "card notice-card", "aria-labelledby": `${id}-title` },
    heading,
    h("label", { for: id }, "Shown once: copy it now"),
    field,
    h("p", { class: "hint", id: `${id}-note` }, note),
    h(
      "button",
      {
        type: "button",
        class: "button secondary",
        onclick: () =>
          void copyText(secret).then((ok) => {
            status.textContent = ok ? "Copied" : "Copying failed: select the text and copy it";
          }),
      },
      "Copy",
    ),
    status,
  );
  return { card, heading };
}

/** A table with a hidden caption and data-label on each cell (the phone layout shows them). */
export function table(caption: string, columns: string[], rows: (Node | string)[][]): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "table" },
      h("caption", { class: "sr-only" }, caption),
      h("thead", {}, h("tr", {}, ...columns.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, ...rows.map((cells) => h("tr", {}, ...cells.map((cell, i) => h("td", { "data-label": columns[i] ?? "" }, cell))))),
    ),
  );
}

/** The checkout's languages, by their own names: an invoice's, and a user's notices'. */
export const LANGUAGES: readonly (readonly [string, string])[] = [
  ["en", "English"],
  ["fr", "Français"],
  ["es", "Español"],
  ["pt", "Português"],
  ["de", "Deutsch"],
  ["ar", "العربية"],
];

// Webhooks, per mode: the URL (the service's checks, its error shown next to the field), "send a
// test event" with the attempt it made, and the signing secret's rotation (confirm; the new secret
// shown once; the old one keeps signing for 24 hours). A viewer reads the settings only. Below, the
// mode's endpoints and their delivery log (webhook-endpoints.ts).
import { h, replace } from "../../shared/dom.ts";
import type { PageContext } from "../context.ts";
import { alertSlot, field, modeLabel, runChange, secretCard, when } from "./parts.ts";
import { endpointsSection } from "./webhook-endpoints.ts";

interface Settings {
  mode: string;
  kyb_status: string;
  webhook_url: string | null;
  webhook_secret: { rotated_at: string | null; previous_secret_expires_at: string | null };
}

interface AttemptShown {
  id: string;
  url: string;
  attempted_at: string;
  /** Delivered: a 2xx answer. */
  ok: boolean;
}

/** To a private or local URL only whether it was delivered (unless the operator shows details): no port scans. */
type Attempt = (AttemptShown & { details_withheld: true }) | (AttemptShown & AttemptDetails);

interface AttemptDetails {
  details_withheld: false;
  status_code: number | null;
  latency_ms: number;
  response_body: string | null;
  /** The answer came from a private address: its body is never shown. */
  response_body_withheld: boolean;
  error: string | null;
}

interface Rotated {
  webhook_secret: string;
  rotated_at: string;
  previous_secret_expires_at: string;
}

export async function renderWebhooks(ctx: PageContext, main: HTMLElement): Promise<void> {
  const manage = ctx.can("manage_webhooks");
  const settings = await ctx.api.get<Settings>(ctx.withMode("/settings"));
  const secretInfo = h("p", { id: "secret-info" });
  const showSecretInfo = (s: Settings["webhook_secret"]) =>
    replace(
      secretInfo,
      s.rotated_at ? `Last rotated ${when(s.rotated_at)}.` : "Never rotated.",
      s.previous_secret_expires_at ? ` The previous secret also signs deliveries until ${when(s.previous_secret_expires_at)}.` : "",
    );
  showSecretInfo(settings.webhook_secret);
  // The endpoints (issue 27) are read before the page is drawn, so it appears whole. The URL above is
  // the first endpoint's: a change on either side is shown on the other.
  let showUrl: (url: string | null) => void = () => {};
  const endpoints = await endpointsSection(ctx, manage, (url) => showUrl(url));
  const url = manage ? urlForm(ctx, settings.webhook_url, endpoints.reload) : urlReadOnly(settings.webhook_url);
  showUrl = url.show;

  replace(
    main,
    h("h1", {}, "Webhooks"),
    h(
      "p",
      { class: "lead" },
      `Where the service sends the events of ${modeLabel(ctx.mode)} payments, signed with Standard Webhooks.`,
      manage ? "" : ctx.roleNote(" Your role can read these settings; a developer or an owner can change them."),
    ),
    url.element,
    manage ? testEvent(ctx) : null,
    h(
      "section",
      { class: "card", "aria-labelledby": "secret-title" },
      h("h2", { id: "secret-title" }, "Signing secret"),
      h("p", {}, "One secret signs the deliveries of both modes. Rotating it shows the new secret once."),
      secretInfo,
      manage ? rotate(ctx, showSecretInfo) : null,
    ),
    endpoints.cards,
  );
}

/** The URL card, and how it shows a URL changed elsewhere on the page. */
interface UrlCard {
  element: HTMLElement;
  show(url: string | null): void;
}

function urlReadOnly(url: string | null): UrlCard {
  const value = h("p", { id: "webhook-url-value" });
  const show = (now: string | null) => replace(value, now ?? "No URL is set: events are not sent.");
  show(url);
  return {
    element: h("section", { class: "card", "aria-labelledby": "url-title" }, h("h2", { id: "url-title" }, "Webhook URL"), value),
    show,
  };
}

/** `saved`: the endpoints read again once the URL is saved (the first endpoint is this URL). */
function urlForm(ctx: PageContext, current: string | null, saved: () => Promise<void>): UrlCard {
  // The URL as the service has it: a change made elsewhere replaces the field's text unless it is being edited.
  let known = current ?? "";
  const error = alertSlot("webhook-url-error");
  const input = h("input", {
    id: "webhook-url",
    name: "url",
    type: "url",
    value: current ?? "",
    placeholder: "https://shop.example.com/webhooks/paygate",
    autocomplete: "off",
    spellcheck: "false",
    "aria-describedby": "webhook-url-hint webhook-url-error",
  });
  const save = h("button", { type: "submit", class: "button" }, "Save URL");
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "url-title", novalidate: true },
    h("h2", { id: "url-title" }, "Webhook URL"),
    field(
      `Webhook URL (${modeLabel(ctx.mode)})`,
      input,
      {
        id: "webhook-url-hint",
        text:
          ctx.mode === "live"
            ? "An https address on the internet. Leave it empty and save to stop sending events."
            : "An http or https address. Local and private addresses (http://127.0.0.1:… for local development) only where the operator allows them. Leave it empty and save to stop sending events.",
      },
      error,
    ),
    save,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void runChange(
      save,
      error,
      async () => {
        input.removeAttribute("aria-invalid");
        const answer = await ctx.api.request<Settings>("PUT", ctx.withMode("/webhook-url"), { url: input.value.trim() === "" ? null : input.value });
        known = answer.webhook_url ?? "";
        input.value = known;
        ctx.announce(answer.webhook_url ? "Webhook URL saved" : "Webhook URL removed");
        void saved();
      },
      input,
    ).then(() => {
      if (error.childElementCount > 0) input.setAttribute("aria-invalid", "true");
    });
  });
  return {
    element: form,
    show(url) {
      if (input.value.trim() === known) input.value = url ?? "";
      known = url ?? "";
    },
  };
}

function testEvent(ctx: PageContext): HTMLElement {
  const error = alertSlot();
  const result = h("div", { id: "test-result" });
  const send = h("button", { type: "button", class: "button secondary" }, "Send a test event");
  send.addEventListener("click", () => {
    void runChange(send, error, async () => {
      replace(result);
      const attempt = await ctx.api.post<Attempt>(ctx.withMode("/webhook-test"));
      const heading = h("h3", { tabindex: "-1", id: "test-result-title" }, attempt.ok ? "Delivered" : "Not delivered");
      if (attempt.details_withheld) {
        replace(
          result,
          heading,
          h(
            "dl",
            { class: "attempt" },
            h("dt", {}, "URL"),
            h("dd", {}, attempt.url),
            h("dt", {}, "Details"),
            h(
              "dd",
              { id: "test-status" },
              "Not shown: the endpoint is on a private or local address, and the dashboard says only whether it was delivered there (its status, error and timing would map the service's network). Your operator can show them (PAYGATE_WEBHOOK_TEST_EVENT_DETAILS).",
            ),
            h("dt", {}, "Event id"),
            h("dd", {}, attempt.id),
          ),
        );
        heading.focus();
        return;
      }
      replace(
        result,
        heading,
        h(
          "dl",
          { class: "attempt" },
          h("dt", {}, "URL"),
          h("dd", {}, attempt.url),
          h("dt", {}, "Status"),
          h("dd", { id: "test-status" }, attempt.status_code === null ? `No answer: ${attempt.error ?? "no response"}` : String(attempt.status_code)),
          h("dt", {}, "Latency"),
          h("dd", {}, `${attempt.latency_ms} ms`),
          h("dt", {}, "Response (first 1 KiB)"),
          h(
            "dd",
            { id: "test-response" },
            attempt.response_body_withheld
              ? "Not shown: the endpoint is on a private or local address, and the dashboard never shows what such an address answers (it could be an internal service's data). The status and latency are above."
              : h("pre", {}, attempt.response_body ?? "—"),
          ),
          h("dt", {}, "Event id"),
          h("dd", {}, attempt.id),
        ),
      );
      heading.focus();
    });
  });
  return h(
    "section",
    { class: "card", "aria-labelledby": "test-title" },
    h("h2", { id: "test-title" }, "Send a test event"),
    h("p", {}, "Signs and sends a webhook.test event to the URL now, once, and shows what the endpoint answered."),
    send,
    error,
    result,
  );
}

function rotate(ctx: PageContext, showInfo: (s: Settings["webhook_secret"]) => void): HTMLElement {
  const error = alertSlot();
  const shown = h("div", {});
  const button = h("button", { type: "button", class: "button danger" }, "Rotate the secret");
  button.addEventListener("click", () => {
    if (!window.confirm("Rotate the webhook signing secret? The current one keeps signing deliveries, beside the new one, for 24 hours.")) return;
    void runChange(button, error, async () => {
      const rotated = await ctx.api.post<Rotated>("/webhook-secret/rotate");
      showInfo({ rotated_at: rotated.rotated_at, previous_secret_expires_at: rotated.previous_secret_expires_at });
      const { card, heading } = secretCard(
        "new-webhook-secret",
        "New signing secret",
        rotated.webhook_secret,
        `Until ${when(rotated.previous_secret_expires_at)} every delivery carries two signatures, one with the old secret and one with this one, so your endpoint keeps verifying while you install it. After that only this secret signs.`,
      );
      replace(shown, card);
      heading.focus();
    });
  });
  return h("div", {}, button, error, shown);
}

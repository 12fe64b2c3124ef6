// The Webhooks page's "Endpoints" (issue 27): the mode's receivers (the merchant's URL first), each
// with the events it wants, its state (disabled: why and since when) and description; adding and
// editing one (a URL, `*` or a list of events, a description), disabling, enabling (redelivering
// what it missed, or not), rotating its secret (shown once) and deleting it. Below, one endpoint's
// delivery log: newest first, all or failing only, "load more" for the next page, redeliver one, or
// every failed one since a time. Choosing the endpoint and the filter are links (the address keeps
// them), so a viewer reads the log with no control of change; the service authorizes every change.
// After a redelivery the log reads itself again, every 2 s while a shown delivery is pending (60 s at
// most, until the page is left), updating its rows in place (focus stays) and saying what changed.
import { append, h, replace } from "../../shared/dom.ts";
import type { components } from "../../../sdk/src/generated/openapi.ts";
import { messageOf } from "../api.ts";
import type { PageContext } from "../context.ts";
import { alertSlot, field, runChange, secretCard, table, when } from "./parts.ts";

// The dashboard answers endpoints and deliveries as the REST API does (its presenters): the OpenAPI document's types.
type Endpoint = components["schemas"]["WebhookEndpoint"];
type Delivery = components["schemas"]["WebhookDelivery"];

interface EventTypes {
  event_types: string[];
  all: string;
}

/** What the page shows: the list, the form, the log; `reload` reads the endpoints again. */
interface Section {
  ctx: PageContext;
  manage: boolean;
  types: EventTypes;
  endpoints: Endpoint[];
  alert: HTMLElement;
  notice: HTMLElement;
  list: HTMLElement;
  form: EndpointForm | null;
  log: HTMLElement;
  reload(): Promise<void>;
  /** The webhook URL above, told when the first endpoint's URL changes (or it goes). */
  onPrimaryUrl: (url: string | null) => void;
  /** Which showLog is current: an older one's polling stops. */
  logRun: number;
  /** The shown log read again now, then every 2 s while a delivery is pending (set by showLog). */
  refreshLog(): void;
}

/** How often the log is read again while a delivery is pending, and for how long at most. */
const LOG_POLL_MS = 2_000;
const LOG_POLL_LIMIT_MS = 60_000;

/** The log's place in the address: `?endpoint=we_…&deliveries=failed`. */
const logParams = () => {
  const params = new URLSearchParams(location.search);
  return { endpoint: params.get("endpoint"), failedOnly: params.get("deliveries") === "failed" };
};

const primaryUrlOf = (endpoints: Endpoint[]) => endpoints.find((e) => e.primary)?.url ?? null;

/**
 * The section's cards, to go into the page's main (its spacing) after the signing secret; `reload`
 * reads the endpoints again (the webhook URL above was saved); `onPrimaryUrl` hears the first
 * endpoint's URL when a change here moved it.
 */
export async function endpointsSection(
  ctx: PageContext,
  manage: boolean,
  onPrimaryUrl: (url: string | null) => void,
): Promise<{ cards: DocumentFragment; reload(): Promise<void> }> {
  const [types, endpoints] = await Promise.all([
    ctx.api.get<EventTypes>("/webhook-event-types"),
    ctx.api.get<Endpoint[]>(ctx.withMode("/webhook-endpoints")),
  ]);
  const section: Section = {
    ctx,
    manage,
    types,
    endpoints,
    alert: alertSlot("endpoints-error"),
    notice: h("div", { id: "endpoint-notice", class: "alert-slot" }),
    list: h("div", { id: "endpoints-list", class: "endpoint-links" }),
    form: null,
    log: h("section", { class: "card endpoint-links", id: "delivery-log", "aria-labelledby": "delivery-log-title" }),
    reload: async () => {
      const before = { primary: primaryUrlOf(section.endpoints), shown: selectedEndpoint(section) };
      section.endpoints = await ctx.api.get<Endpoint[]>(ctx.withMode("/webhook-endpoints"));
      showList(section);
      const primary = primaryUrlOf(section.endpoints);
      if (primary !== before.primary) section.onPrimaryUrl(primary);
      // The log again when its endpoint went, came or moved to another URL.
      const shown = selectedEndpoint(section);
      if (shown?.id !== before.shown?.id || shown?.url !== before.shown?.url) void showLog(section);
    },
    onPrimaryUrl,
    logRun: 0,
    refreshLog: () => {},
  };
  if (manage) section.form = endpointForm(section);
  showList(section);
  void showLog(section);
  const cards = document.createDocumentFragment();
  append(cards, [
    h(
      "section",
      { class: "card", "aria-labelledby": "endpoints-title" },
      h("h2", { id: "endpoints-title" }, "Endpoints"),
      h(
        "p",
        {},
        "Every endpoint gets the events its filter names, signed with its own secret, each delivery retried on its own schedule. The first one is the webhook URL above. An endpoint whose every attempt fails for 3 days is disabled.",
      ),
      section.alert,
      section.list,
    ),
    section.notice,
    section.form?.element ?? null,
    section.log,
  ]);
  const reload = async () => {
    try {
      await section.reload();
    } catch (error) {
      replace(section.alert, h("p", { class: "alert" }, messageOf(error)));
    }
  };
  return { cards, reload };
}

// ── The list ──

const eventsText = (events: string[]) => (events.includes("*") ? "Every event (*)" : events.join(", "));

function stateOf(endpoint: Endpoint): HTMLElement {
  if (endpoint.status === "disabled") {
    const why =
      endpoint.disabled_reason === "failing"
        ? `every attempt failed${endpoint.failing_since ? ` since ${when(endpoint.failing_since)}` : ""}`
        : "turned off in the dashboard or the API";
    return h("span", { class: "status failed" }, `Disabled since ${when(endpoint.disabled_at)}: ${why}`);
  }
  if (endpoint.failing_since) return h("span", { class: "status failed" }, `Enabled, failing since ${when(endpoint.failing_since)}`);
  return h("span", { class: "status ok" }, "Enabled");
}

function showList(section: Section): void {
  const { ctx, manage, endpoints } = section;
  const selected = selectedEndpoint(section);
  if (endpoints.length === 0) {
    replace(section.list, h("p", { id: "no-endpoints" }, "No endpoint: events of this mode are not sent."));
    return;
  }
  const columns = ["URL", "Events", "State", "Description", "Deliveries", ...(manage ? ["Actions"] : [])];
  const rows = endpoints.map((endpoint) => [
    h(
      "span",
      { class: "endpoint-url" },
      h("code", {}, endpoint.url),
      endpoint.primary ? h("span", { class: "hint" }, " (the webhook URL above)") : null,
    ),
    eventsText(endpoint.enabled_events),
    stateOf(endpoint),
    endpoint.description ?? "—",
    h(
      "a",
      {
        href: ctx.href("/webhooks", { endpoint: endpoint.id }),
        "aria-current": endpoint.id === selected?.id ? "true" : null,
        onclick: (event: Event) => {
          event.preventDefault();
          history.replaceState(null, "", ctx.href("/webhooks", { endpoint: endpoint.id }));
          showList(section);
          void showLog(section, true);
        },
      },
      "Delivery log",
      h("span", { class: "sr-only" }, ` of ${endpoint.url}`),
    ),
    ...(manage ? [rowActions(section, endpoint)] : []),
  ]);
  replace(section.list, table(`Webhook endpoints (${ctx.mode} mode)`, columns, rows));
}

function rowActions(section: Section, endpoint: Endpoint): HTMLElement {
  const { ctx } = section;
  const of = () => h("span", { class: "sr-only" }, ` ${endpoint.url}`);
  const path = (suffix = "") => ctx.withMode(`/webhook-endpoints/${encodeURIComponent(endpoint.id)}${suffix}`);
  const action = (label: string, className: string, run: (button: HTMLButtonElement) => Promise<void>) => {
    const button = h("button", { type: "button", class: `button ${className}` }, label, of());
    button.addEventListener("click", () => void runChange(button, section.alert, () => run(button)));
    return button;
  };
  const patch = async (body: Record<string, unknown>, said: (redelivered: number) => string) => {
    const answer = await ctx.api.patch<{ endpoint: Endpoint; redelivered: number }>(path(), body);
    await section.reload();
    say(section, said(answer.redelivered));
    if (answer.redelivered > 0 && selectedEndpoint(section)?.id === endpoint.id) section.refreshLog();
  };
  const buttons: HTMLElement[] = [action("Edit", "secondary", async () => section.form?.edit(endpoint))];
  if (endpoint.status === "enabled") {
    buttons.push(action("Disable", "secondary", () => patch({ disabled: true }, () => `${endpoint.url} is disabled: nothing is sent to it`)));
  } else {
    buttons.push(
      action("Enable and redeliver missed", "secondary", () =>
        patch({ disabled: false, redeliver_missed: true }, (n) => `${endpoint.url} is enabled; ${count(n)} it missed queued again`),
      ),
      action("Enable only", "secondary", () => patch({ disabled: false }, () => `${endpoint.url} is enabled; what it missed is not sent`)),
    );
  }
  buttons.push(
    action("Rotate its secret", "danger", async () => {
      if (
        !window.confirm(
          `Rotate the signing secret of ${endpoint.url}? The current one keeps signing its deliveries, beside the new one, for 24 hours.`,
        )
      )
        return;
      const rotated = await ctx.api.post<Endpoint>(path("/rotate-secret"));
      await section.reload();
      showSecret(section, rotated, "Endpoint's new secret", rotatedNote(rotated));
    }),
    action("Delete", "danger", async () => {
      const question = endpoint.primary
        ? `Delete ${endpoint.url}? It is this mode's webhook URL: removing it stops the events of the URL above.`
        : `Delete ${endpoint.url}? Nothing more is sent to it, and its delivery log goes with it.`;
      if (!window.confirm(question)) return;
      await ctx.api.delete(path());
      await section.reload();
      say(section, `${endpoint.url} was deleted`);
    }),
  );
  return h("div", { class: "actions" }, ...buttons);
}

const count = (n: number) => (n === 1 ? "1 delivery" : `${n} deliveries`);

const rotatedNote = (endpoint: Endpoint) =>
  endpoint.previous_secret_expires_at
    ? `Until ${when(endpoint.previous_secret_expires_at)} its deliveries carry two signatures, one with the old secret and one with this one, so the receiver keeps verifying while you install it.`
    : "Install it in the receiver: it verifies this endpoint's deliveries (Standard Webhooks).";

/** A visible result and the same said to screen readers (the page's polite live region). */
function say(section: Section, message: string): void {
  replace(section.notice, h("p", { class: "notice", id: "endpoint-notice-text" }, message));
  section.ctx.announce(message);
}

function showSecret(section: Section, endpoint: Endpoint, title: string, note: string): void {
  if (!endpoint.secret) return;
  const { card, heading } = secretCard("endpoint-secret", title, endpoint.secret, note);
  replace(section.notice, card);
  heading.focus();
}

// ── Add and edit ──

interface EndpointForm {
  element: HTMLElement;
  edit(endpoint: Endpoint): void;
}

function endpointForm(section: Section): EndpointForm {
  const { ctx, types } = section;
  let editing: Endpoint | null = null;
  const error = alertSlot("endpoint-form-error");
  const title = h("h2", { id: "endpoint-form-title", tabindex: "-1" }, "Add an endpoint");
  const url = h("input", {
    id: "endpoint-url",
    name: "url",
    type: "url",
    placeholder: "https://books.example.com/webhooks/paygate",
    autocomplete: "off",
    spellcheck: "false",
    "aria-describedby": "endpoint-url-hint",
  });
  const description = h("input", { id: "endpoint-description", name: "description", type: "text", maxlength: "500", autocomplete: "off" });
  const all = h("input", { id: "endpoint-event-all", type: "checkbox", value: types.all, checked: true });
  const boxes = types.event_types.map((type) =>
    h("input", { id: `endpoint-event-${type.replaceAll(".", "-")}`, type: "checkbox", value: type, name: "enabled_events" }),
  );
  const syncBoxes = () => {
    for (const box of boxes) box.disabled = all.checked;
  };
  all.addEventListener("change", syncBoxes);
  syncBoxes();
  const submit = h("button", { type: "submit", class: "button" }, "Add endpoint");
  const cancel = h("button", { type: "button", class: "button secondary" }, "Cancel editing");
  const buttons = h("div", { class: "actions" }, submit);
  const reset = () => {
    editing = null;
    replace(title, "Add an endpoint");
    replace(submit, "Add endpoint");
    replace(buttons, submit);
    url.value = "";
    description.value = "";
    all.checked = true;
    for (const box of boxes) box.checked = false;
    syncBoxes();
  };
  cancel.addEventListener("click", () => {
    reset();
    replace(error);
    url.focus();
  });
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "endpoint-form-title", novalidate: true, id: "endpoint-form" },
    title,
    field("Endpoint URL", url, {
      id: "endpoint-url-hint",
      text:
        ctx.mode === "live"
          ? "An https address on the internet, checked as the webhook URL is."
          : "An http or https address, checked as the webhook URL is (local addresses only where the operator allows them).",
    }),
    h(
      "fieldset",
      { class: "checks" },
      h("legend", {}, "Events it receives"),
      h("label", { for: all.id }, all, "Every event (*), those added later too"),
      ...boxes.map((box) => h("label", { for: box.id }, box, h("code", {}, box.value))),
    ),
    field("Description (optional)", description),
    error,
    buttons,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const events = all.checked ? [types.all] : boxes.filter((box) => box.checked).map((box) => box.value);
    const body = { url: url.value.trim(), enabled_events: events, description: description.value.trim() };
    void runChange(
      submit,
      error,
      async () => {
        if (editing) {
          const current = editing;
          const changed: Record<string, unknown> = {
            enabled_events: body.enabled_events,
            description: body.description === "" ? null : body.description,
          };
          // The URL only when it changed: a new URL needs the password again (sudo mode), a filter does not.
          if (body.url !== current.url) changed.url = body.url;
          await ctx.api.patch(ctx.withMode(`/webhook-endpoints/${encodeURIComponent(current.id)}`), changed);
          reset();
          await section.reload();
          say(section, `${body.url} is saved`);
        } else {
          const created = await ctx.api.post<Endpoint>(ctx.withMode("/webhook-endpoints"), {
            url: body.url,
            enabled_events: body.enabled_events,
            ...(body.description === "" ? {} : { description: body.description }),
          });
          reset();
          await section.reload();
          ctx.announce(`Endpoint ${created.url} added`);
          showSecret(
            section,
            created,
            `Secret of ${created.url}`,
            "The receiver verifies this endpoint's deliveries with it (Standard Webhooks). It is not shown again; rotating it makes a new one.",
          );
        }
      },
      url,
    );
  });
  return {
    element: form,
    edit(endpoint) {
      editing = endpoint;
      replace(title, "Edit the endpoint");
      replace(submit, "Save endpoint");
      replace(buttons, submit, cancel);
      url.value = endpoint.url;
      description.value = endpoint.description ?? "";
      all.checked = endpoint.enabled_events.includes(types.all);
      for (const box of boxes) box.checked = endpoint.enabled_events.includes(box.value);
      syncBoxes();
      replace(error);
      title.focus();
    },
  };
}

// ── The delivery log ──

function selectedEndpoint(section: Section): Endpoint | undefined {
  const wanted = logParams().endpoint;
  return section.endpoints.find((e) => e.id === wanted) ?? section.endpoints[0];
}

const statusText = (d: Delivery) => (d.status === "failed" && d.next_attempt_at ? `failed, retried ${when(d.next_attempt_at)}` : d.status);
const statusClass = (d: Delivery) => (d.status === "failed" ? "status failed" : d.status === "succeeded" ? "status ok" : "status");

/** A shown row's cells that change with its delivery: updated in place, so the row's button keeps focus. */
interface RowCells {
  status: HTMLElement;
  code: HTMLElement;
  latency: HTMLElement;
  time: HTMLElement;
  attempts: HTMLElement;
}

function fillRow(cells: RowCells, d: Delivery): void {
  cells.status.className = statusClass(d);
  cells.status.textContent = statusText(d);
  cells.code.textContent = d.status_code === null ? "—" : String(d.status_code);
  cells.latency.textContent = d.latency_ms === null ? "—" : `${d.latency_ms} ms`;
  cells.time.textContent = when(d.last_attempt_at ?? d.created_at);
  cells.attempts.textContent = String(d.attempts);
}

/** What a delivery's new outcome is, said once: "Delivery of payment.initiated succeeded (200)". */
function outcomeText(changed: Delivery[]): string {
  const one = (d: Delivery) => `Delivery of ${d.event.type} ${d.status}${d.status_code === null ? "" : ` (${d.status_code})`}`;
  if (changed.length <= 3) return changed.map(one).join("; ");
  const succeeded = changed.filter((d) => d.status === "succeeded").length;
  return `${count(changed.length)} done: ${succeeded} succeeded, ${changed.length - succeeded} did not`;
}

/** The log of the endpoint the address names (the first otherwise), all or failing only; `focus`: its heading after a choice. */
async function showLog(section: Section, focus = false): Promise<void> {
  const { ctx, manage, log } = section;
  const run = ++section.logRun;
  // This log is still the one shown: another endpoint or filter, or another page, stops its polling.
  const current = () => run === section.logRun && log.isConnected;
  section.refreshLog = () => {};
  const endpoint = selectedEndpoint(section);
  const title = h("h2", { id: "delivery-log-title", tabindex: "-1" }, "Delivery log");
  if (!endpoint) {
    replace(log, title, h("p", {}, "No endpoint, no deliveries."));
    return;
  }
  const { failedOnly } = logParams();
  const error = alertSlot("delivery-log-error");
  const result = h("p", { id: "delivery-log-result" });
  const body = h("div", { id: "delivery-rows" });
  const more = h("p", {});
  const rows: Delivery[] = [];
  const cells = new Map<string, RowCells>();
  const filterLink = (failed: boolean, label: string) =>
    h(
      "a",
      {
        href: ctx.href("/webhooks", failed ? { endpoint: endpoint.id, deliveries: "failed" } : { endpoint: endpoint.id }),
        "aria-current": failed === failedOnly ? "true" : null,
        onclick: (event: Event) => {
          event.preventDefault();
          history.replaceState(null, "", (event.currentTarget as HTMLAnchorElement).href);
          void showLog(section, true);
        },
      },
      label,
    );
  const load = async (after: string | null) => {
    const query = new URLSearchParams({ limit: "20", ...(failedOnly ? { status: "failed" } : {}), ...(after ? { starting_after: after } : {}) });
    const page = await ctx.api.get<{ deliveries: Delivery[]; has_more: boolean }>(
      ctx.withMode(`/webhook-endpoints/${encodeURIComponent(endpoint.id)}/deliveries?${query}`),
    );
    rows.push(...page.deliveries);
    showRows();
    const last = rows[rows.length - 1];
    replace(
      more,
      page.has_more && last
        ? h(
            "a",
            {
              href: ctx.href("/webhooks", { endpoint: endpoint.id, ...(failedOnly ? { deliveries: "failed" } : {}) }),
              id: "load-more-deliveries",
              onclick: (event: Event) => {
                event.preventDefault();
                void load(last.id)
                  .then(() => ctx.announce(`${count(rows.length)} shown`))
                  .catch((e: unknown) => replace(error, h("p", { class: "alert" }, messageOf(e))));
              },
            },
            "Load more deliveries",
          )
        : null,
    );
  };
  const showRows = () => {
    if (rows.length === 0) {
      replace(body, h("p", { id: "no-deliveries" }, failedOnly ? "No failing delivery." : "No delivery yet."));
      return;
    }
    const columns = ["Event", "Event id", "Status", "Status code", "Latency", "Time", "Attempts", ...(manage ? ["Redeliver"] : [])];
    cells.clear();
    replace(
      body,
      table(
        `Deliveries to ${endpoint.url}${failedOnly ? ", failing only" : ""}`,
        columns,
        rows.map((d) => {
          const row: RowCells = { status: h("span", {}), code: h("span", {}), latency: h("span", {}), time: h("span", {}), attempts: h("span", {}) };
          fillRow(row, d);
          cells.set(d.id, row);
          return [
            h("code", {}, d.event.type),
            h("code", {}, d.event.id),
            row.status,
            row.code,
            row.latency,
            row.time,
            row.attempts,
            ...(manage ? [redeliverButton(section, d, result, (now) => update([now]))] : []),
          ];
        }),
      ),
    );
  };
  /** Rows shown again with their deliveries' new state; a new outcome (an attempt made) said once. */
  const update = (fresh: Delivery[]) => {
    if (!current()) return;
    const changed: Delivery[] = [];
    for (const now of fresh) {
      const index = rows.findIndex((d) => d.id === now.id);
      const before = rows[index];
      const row = cells.get(now.id);
      if (!before || !row) continue;
      rows[index] = now;
      fillRow(row, now);
      if (now.status !== "pending" && (now.status !== before.status || now.last_attempt_at !== before.last_attempt_at)) changed.push(now);
    }
    if (changed.length > 0) ctx.announce(outcomeText(changed));
  };
  /**
   * Every shown row read again, newest first whatever the filter (a failing-only log keeps its rows,
   * their new state shown); deliveries newer than the first row, of the filter, go on top.
   */
  const reread = async () => {
    const wanted = new Set(rows.map((d) => d.id));
    let after: string | null = null;
    for (let pages = 0; pages === 0 || (wanted.size > 0 && pages < 5); pages++) {
      const query: URLSearchParams = new URLSearchParams({ limit: "100", ...(after ? { starting_after: after } : {}) });
      const page: { deliveries: Delivery[]; has_more: boolean } = await ctx.api.get<{ deliveries: Delivery[]; has_more: boolean }>(
        ctx.withMode(`/webhook-endpoints/${encodeURIComponent(endpoint.id)}/deliveries?${query}`),
      );
      if (!current()) return;
      if (pages === 0) prepend(page.deliveries, page.has_more);
      update(page.deliveries.filter((d) => wanted.delete(d.id)));
      const last: Delivery | undefined = page.deliveries[page.deliveries.length - 1];
      if (!page.has_more || !last) return;
      after = last.id;
    }
  };
  /** The newest page's deliveries above the first shown row; the table drawn again, focus back on the same row's button. */
  const prepend = (newest: Delivery[], hasMore: boolean) => {
    const first = rows[0];
    const cut = first ? newest.findIndex((d) => d.id === first.id) : hasMore ? -1 : newest.length;
    const added = newest.slice(0, Math.max(cut, 0)).filter((d) => !failedOnly || d.status === "failed");
    if (added.length === 0) return;
    const focused = body.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.delivery : undefined;
    rows.unshift(...added);
    showRows();
    if (focused) for (const button of body.querySelectorAll<HTMLElement>("[data-delivery]")) if (button.dataset.delivery === focused) button.focus();
  };
  let watching = false;
  let until = 0;
  /** Every 2 s while a shown delivery is pending, for 60 s at most, while this log is shown. */
  const watch = () => {
    until = Date.now() + LOG_POLL_LIMIT_MS;
    if (watching) return;
    watching = true;
    void (async () => {
      try {
        while (current() && Date.now() < until && rows.some((d) => d.status === "pending")) {
          await new Promise((resolve) => window.setTimeout(resolve, LOG_POLL_MS));
          if (!current()) return;
          await reread().catch(() => {}); // a missed answer: asked again next time
        }
      } finally {
        watching = false;
      }
    })();
  };
  section.refreshLog = () => {
    void reread()
      .catch(() => {})
      .then(watch);
  };
  replace(
    log,
    title,
    h("p", {}, "Deliveries to ", h("code", { id: "delivery-log-url" }, endpoint.url), ", newest first."),
    h("nav", { class: "filter-actions", "aria-label": "Which deliveries" }, filterLink(false, "All deliveries"), filterLink(true, "Failing only")),
    manage ? redeliverSinceForm(section, endpoint, result) : null,
    error,
    result,
    body,
    more,
  );
  if (focus) title.focus();
  try {
    await load(null);
    watch();
  } catch (e) {
    replace(error, h("p", { class: "alert" }, messageOf(e)));
  }
}

/** One row's "Redeliver": the row shows the delivery queued again (pending), then the log follows it. */
function redeliverButton(section: Section, delivery: Delivery, result: HTMLElement, shown: (now: Delivery) => void): HTMLElement {
  const { ctx } = section;
  const error = alertSlot();
  const button = h(
    "button",
    { type: "button", class: "button secondary", "data-delivery": delivery.id },
    "Redeliver",
    h("span", { class: "sr-only" }, ` ${delivery.event.type} ${delivery.event.id}`),
  );
  button.addEventListener("click", () => {
    void runChange(button, error, async () => {
      const queued = await ctx.api.post<Delivery>(ctx.withMode(`/webhook-deliveries/${encodeURIComponent(delivery.id)}/redeliver`));
      const message = `${delivery.event.type} (${delivery.event.id}) queued again: it is sent within moments`;
      replace(result, message);
      ctx.announce(message);
      shown(queued);
      section.refreshLog();
    });
  });
  return h("div", {}, button, error);
}

/** "Redeliver every failed delivery since": a local date and time, sent as the instant it names. */
function redeliverSinceForm(section: Section, endpoint: Endpoint, result: HTMLElement): HTMLElement {
  const { ctx } = section;
  const error = alertSlot("redeliver-since-error");
  const since = h("input", { id: "redeliver-since", type: "datetime-local", required: true, "aria-describedby": "redeliver-since-hint" });
  const submit = h("button", { type: "submit", class: "button secondary" }, "Redeliver failed");
  const form = h(
    "form",
    { class: "filters", novalidate: true, "aria-label": "Redeliver failed deliveries" },
    h(
      "div",
      { class: "field" },
      h("label", { for: "redeliver-since" }, "Every failed delivery since"),
      since,
      h("p", { class: "hint", id: "redeliver-since-hint" }, "Your local time; events written from then on."),
    ),
    submit,
    error,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const at = since.value === "" ? null : new Date(since.value);
    if (!at || Number.isNaN(at.getTime())) {
      replace(error, h("p", { class: "alert" }, "Choose the date and time from which failed deliveries are sent again"));
      since.setAttribute("aria-invalid", "true");
      since.focus();
      return;
    }
    since.removeAttribute("aria-invalid");
    void runChange(
      submit,
      error,
      async () => {
        const answer = await ctx.api.post<{ queued: number }>(
          ctx.withMode(`/webhook-endpoints/${encodeURIComponent(endpoint.id)}/redeliver-failed`),
          { since: at.toISOString() },
        );
        const message = `${count(answer.queued)} queued again since ${when(at.toISOString())}`;
        replace(result, message);
        ctx.announce(message);
        if (answer.queued > 0) section.refreshLog();
      },
      since,
    );
  });
  return form;
}

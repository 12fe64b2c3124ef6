// Home: how the business is doing in the mode shown, over the last 30 UTC days: the volume paid per
// day in each fiat currency, transactions by status, checkouts and payments by coin, the share of
// checkouts paid, and webhook endpoints still failing. Each chart (Chart.js, bundled by the build)
// is drawn for sighted readers only; the table beside it holds the same figures, exactly as the API
// gives them (decimal strings), and is what screen readers and the tests read.
import { BarController, BarElement, CategoryScale, Chart, type ChartDataset, Legend, LinearScale, Tooltip } from "chart.js";
import { h, replace } from "../../shared/dom.ts";
import { crypto, fiat } from "../../shared/format.ts";
import type { PageContext } from "../context.ts";
import { day as dayLabel, table, when } from "./parts.ts";
import { STATUS_LABELS, type TransactionRow } from "./transactions.ts";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

interface Home {
  from: string;
  to: string;
  volume: { currency: string; total: string; payments: number; days: { day: string; amount: string; payments: number }[] }[];
  statuses: { status: TransactionRow["status"]; count: number }[];
  conversion: { initiated: number; paid: number; share: string | null };
  coins: { currency: string; checkouts: number; payments: number; amount_paid: string }[];
  failing_endpoints: {
    url: string;
    failed: number;
    retrying: number;
    last_attempt_at: string;
    last_status_code: number | null;
    last_error: string | null;
  }[];
}

const COLORS = ["#1d4ed8", "#0f6b3a", "#8a4b00", "#a4161a", "#6b21a8"];

export async function renderHome(ctx: PageContext, main: HTMLElement): Promise<void> {
  const home = await ctx.api.get<Home>(ctx.withMode("/home"));
  const period = `${dayLabel(home.from)} – ${dayLabel(home.to)} (UTC)`;
  replace(
    main,
    h("h1", {}, "Home"),
    h("p", { class: "lead" }, `The last 30 days in ${ctx.mode === "live" ? "live" : "test"} mode: ${period}.`),
    h("div", { class: "home-grid" }, volumeSection(home), statusSection(home), coinSection(home), checkoutSection(home), webhookSection(ctx, home)),
  );
}

const WIDE = new Set(["home-volume", "home-webhooks"]);

function section(id: string, title: string, ...children: (Node | string)[]): HTMLElement {
  return h("section", { class: `card home-card${WIDE.has(id) ? " home-wide" : ""}`, "aria-labelledby": id }, h("h2", { id }, title), ...children);
}

/** A bar chart of the figures (drawn from them, numbers for drawing only); the canvas is hidden from screen readers, the table says it all. */
function barChart(labels: string[], datasets: ChartDataset<"bar", number[]>[], stacked = false): HTMLElement {
  const canvas = h("canvas", { "aria-hidden": "true" });
  const box = h("div", { class: "chart" }, canvas);
  new Chart(canvas, {
    type: "bar",
    data: { labels, datasets },
    options: {
      animation: false,
      maintainAspectRatio: false,
      responsive: true,
      plugins: { legend: { display: datasets.length > 1 } },
      scales: { x: { stacked }, y: { stacked, beginAtZero: true } },
    },
  });
  return box;
}

function volumeSection(home: Home): HTMLElement {
  if (home.volume.length === 0) return section("home-volume", "Volume paid", h("p", { class: "empty" }, "No payments in the last 30 days."));
  const labels = home.volume[0]?.days.map((d) => dayLabel(d.day)) ?? [];
  return section(
    "home-volume",
    "Volume paid",
    h(
      "ul",
      { class: "home-totals" },
      ...home.volume.map((v) => h("li", {}, h("strong", {}, fiat(v.total, v.currency)), ` from ${v.payments} payment${v.payments === 1 ? "" : "s"}`)),
    ),
    ...home.volume.flatMap((v, i) => [
      h("h3", { class: "chart-title" }, `${v.currency} per day`),
      barChart(labels, [{ label: v.currency, data: v.days.map((d) => Number(d.amount)), backgroundColor: COLORS[i % COLORS.length] }]),
    ]),
    figures(
      "Volume paid per day",
      compact(
        table(
          "Volume paid per day",
          ["Day", ...home.volume.map((v) => v.currency)],
          (home.volume[0]?.days ?? []).map((d, row) => [dayLabel(d.day), ...home.volume.map((v) => fiat(v.days[row]?.amount ?? "0", v.currency))]),
        ),
      ),
    ),
  );
}

/**
 * A chart's figures, one click away: a disclosure (details/summary: a button to the keyboard and to
 * screen readers, which announce it collapsed or expanded) that holds the table. Shown in full, a
 * 30-row table of mostly zeroes under the chart pushed the rest of the page down.
 */
function figures(what: string, wrap: HTMLElement): HTMLElement {
  return h("details", { class: "chart-figures" }, h("summary", {}, `${what} as a table`), wrap);
}

/** A narrow table that stays a table on a phone (30 rows as cards would be a long scroll). */
function compact(wrap: HTMLElement): HTMLElement {
  wrap.classList.add("compact");
  return wrap;
}

function statusSection(home: Home): HTMLElement {
  return section(
    "home-statuses",
    "Transactions by status",
    barChart(
      home.statuses.map((s) => STATUS_LABELS[s.status]),
      [{ label: "Transactions", data: home.statuses.map((s) => s.count), backgroundColor: COLORS[0] }],
    ),
    figures(
      "Transactions by status",
      table(
        "Transactions by status",
        ["Status", "Transactions"],
        home.statuses.map((s) => [STATUS_LABELS[s.status], String(s.count)]),
      ),
    ),
  );
}

function coinSection(home: Home): HTMLElement {
  if (home.coins.length === 0) return section("home-coins", "Payments by coin", h("p", { class: "empty" }, "No customer has chosen a coin yet."));
  return section(
    "home-coins",
    "Payments by coin",
    barChart(
      home.coins.map((c) => c.currency),
      [
        { label: "Paid", data: home.coins.map((c) => c.payments), backgroundColor: COLORS[1] },
        { label: "Not paid", data: home.coins.map((c) => c.checkouts - c.payments), backgroundColor: COLORS[2] },
      ],
      true,
    ),
    figures(
      "Payments by coin",
      table(
        "Payments by coin",
        ["Coin", "Checkouts", "Paid", "Amount received"],
        home.coins.map((c) => [c.currency, String(c.checkouts), String(c.payments), crypto(c.amount_paid, c.currency)]),
      ),
    ),
  );
}

function checkoutSection(home: Home): HTMLElement {
  const { initiated, paid, share } = home.conversion;
  return section(
    "home-checkouts",
    "Checkouts paid",
    share === null
      ? h("p", { class: "empty" }, "No customer has chosen a coin yet.")
      : h(
          "p",
          { class: "home-share" },
          h("strong", {}, `${share}%`),
          ` of checkouts were paid: ${paid} of ${initiated} where the customer chose a coin.`,
        ),
    table(
      "Checkouts paid",
      ["Checkouts with a coin chosen", "Paid", "Share paid"],
      [[String(initiated), String(paid), share === null ? "—" : `${share}%`]],
    ),
  );
}

function webhookSection(ctx: PageContext, home: Home): HTMLElement {
  const link = h("a", { href: ctx.href("/webhooks"), "data-route": "" }, "Webhook settings");
  if (home.failing_endpoints.length === 0)
    return section(
      "home-webhooks",
      "Failing webhook deliveries",
      h("p", { class: "empty" }, "None: every webhook event was delivered or is on its way."),
      h("p", {}, link),
    );
  return section(
    "home-webhooks",
    "Failing webhook deliveries",
    table(
      "Failing webhook deliveries",
      ["Address", "Gave up", "Will retry", "Last attempt", "Last answer"],
      home.failing_endpoints.map((f) => [
        h("code", {}, f.url),
        String(f.failed),
        String(f.retrying),
        when(f.last_attempt_at),
        f.last_status_code === null ? (f.last_error ?? "No answer") : `HTTP ${f.last_status_code}`,
      ]),
    ),
    h("p", {}, "Open a transaction to see its events and send one again, or check the address in ", link, "."),
  );
}

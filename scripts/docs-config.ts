// `npm run docs:config`: writes docs/configuration.md from the configuration schema, each variable's
// `.describe()` (src/config.ts, src/rails/chains/config.ts), so the page cannot drift from what the
// service reads. `npm run docs:config -- --check` (and test/docs/configuration-doc.test.ts) fails when
// the committed page differs from what the schema gives.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import { EnvSchema } from "../src/config.ts";
import { ConnectionEnvSchema, RateLimitEnvSchema } from "../src/edge/config.ts";
import { LifecycleEnvSchema, WatchEnvSchema } from "../src/jobs/config.ts";
import { PriceEnvSchema } from "../src/rails/prices/config.ts";
import { WebhookEnvSchema } from "../src/webhooks/config.ts";
import { ChainEnvSchema } from "../src/rails/chains/config.ts";
import { ForwarderEnvSchema } from "../src/rails/evm/config.ts";

export const CONFIGURATION_DOC = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "docs", "configuration.md");

type Shape = Record<string, z.ZodType>;

export interface Section {
  title: string;
  /** One sentence under the heading: what the variables are for, and where the behaviour is described. */
  intro: string;
  variables: Shape;
}

/** The variables of the service's schema not in a group of their own, split by what they configure. */
function remaining(all: Shape, grouped: Shape[], test: (name: string) => boolean): Shape {
  const taken = new Set(grouped.flatMap((shape) => Object.keys(shape)));
  return Object.fromEntries(Object.entries(all).filter(([name]) => !taken.has(name) && test(name)));
}

export function sections(): Section[] {
  const all = EnvSchema.shape as Shape;
  const groups: Shape[] = [
    ConnectionEnvSchema.shape,
    PriceEnvSchema.shape,
    ChainEnvSchema.shape,
    ForwarderEnvSchema.shape,
    WatchEnvSchema.shape,
    LifecycleEnvSchema.shape,
    WebhookEnvSchema.shape,
    RateLimitEnvSchema.shape,
  ];
  const graphql = (name: string) => name.startsWith("PAYGATE_GRAPHQL_") || name === "NODE_ENV";
  const dashboard = (name: string) => name.startsWith("PAYGATE_DASHBOARD_");
  const browsers = (name: string) => name === "PAYGATE_CORS_ORIGINS";
  const service = (name: string) => !graphql(name) && !dashboard(name) && !browsers(name);
  return [
    {
      title: "Service, database and logs",
      intro: "Where paygate listens and is reached, its database, its encryption key and its logs ([Operations](operations.md)).",
      variables: remaining(all, groups, service),
    },
    {
      title: "Connections",
      intro: "What one client may hold open, and how long a request may take ([Security](security.md#connections-and-live-updates)).",
      variables: ConnectionEnvSchema.shape,
    },
    {
      title: "Rate limits",
      intro: "Requests per API key and per client address ([Rate limits](rest-api.md#rate-limits)).",
      variables: RateLimitEnvSchema.shape,
    },
    {
      title: "Browsers (CORS)",
      intro: "Which pages may call the browser routes ([Browsers and CORS](rest-api.md#browsers-and-cors)).",
      variables: remaining(all, groups, browsers),
    },
    {
      title: "Prices",
      intro: "The live price feeds; test mode prices from the test rates ([Prices](wallets-and-chains.md#prices)).",
      variables: PriceEnvSchema.shape,
    },
    {
      title: "Lifecycle",
      intro: "How long a transaction waits, and the expiry job ([Lifecycle](lifecycle.md)).",
      variables: LifecycleEnvSchema.shape,
    },
    {
      title: "Payment watcher",
      intro: "How often the chains are read for payments ([Watching the chains](wallets-and-chains.md#watching-the-chains)).",
      variables: WatchEnvSchema.shape,
    },
    {
      title: "Chains and nodes",
      intro:
        "The node of each coin and mode, and the confirmations a payment needs. An empty value means unset; `none` switches a default node off, and payments in that coin and mode are then not watched ([Watching the chains](wallets-and-chains.md#watching-the-chains)). Every `*_ESPLORA_URL` and `*_RPC_URL` variable takes a list of URLs separated by commas, your own node first and providers after (`http://127.0.0.1:8545,https://sepolia.infura.io/v3/KEY`): each read goes to the first healthy node, and a node that errs, times out, lags behind the others (PAYGATE_NODE_MAX_LAG_BLOCKS) or answers for another chain is set aside and asked again with back-off ([Failover](own-node.md#your-node-first-providers-after-failover)). While no node of a network is healthy, initiate on that network answers 503 `node_unavailable`.",
      variables: ChainEnvSchema.shape,
    },
    {
      title: "Deposit forwarders (EVM)",
      intro:
        "Each EVM network's forwarder factory and fee payer per mode, and when flushes run by themselves ([Deposit forwarders](settlement.md#deposit-forwarders-on-evm-networks)).",
      variables: ForwarderEnvSchema.shape,
    },
    {
      title: "Webhooks",
      intro: "Delivery, retries and where webhooks may be sent ([Webhooks](webhooks.md)).",
      variables: WebhookEnvSchema.shape,
    },
    {
      title: "GraphQL",
      intro: "The GraphQL endpoint's page, introspection and limits ([The GraphQL API](graphql.md)).",
      variables: remaining(all, groups, graphql),
    },
    {
      title: "Dashboard",
      intro: "Second factors and re-authentication of dashboard users ([The dashboard](dashboard.md)).",
      variables: remaining(all, groups, dashboard),
    },
  ];
}

/** A table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");
}

/** The page; throws naming every variable without a description, and any the sections leave out. */
export function renderConfigurationDoc(list: Section[] = sections(), all: Shape = EnvSchema.shape as Shape): string {
  const problems: string[] = [];
  const shown = new Set(list.flatMap((section) => Object.keys(section.variables)));
  for (const name of Object.keys(all)) if (!shown.has(name)) problems.push(`${name}: in the schema but in no section of scripts/docs-config.ts`);
  const parts = [
    "# Configuration",
    "",
    "<!-- Generated by `npm run docs:config` from the configuration schema (src/config.ts, src/rails/chains/config.ts:",
    "     each variable's .describe()). Do not edit: change the description and run it again; a test fails while",
    "     this page and the schema differ. -->",
    "",
    "paygate reads its configuration from the environment once, at start. A bad value stops the service with a message",
    "naming the variable; an empty value (`PORT=`) means unset. Production settings worth deciding are listed in",
    "[Operations](operations.md#what-matters-in-the-environment), and [Going live](going-live.md) is the checklist.",
    "",
  ];
  for (const section of list) {
    const names = Object.keys(section.variables);
    if (names.length === 0) continue;
    parts.push(`## ${section.title}`, "", section.intro, "", "| Variable | What it does, default and unit |", "|---|---|");
    for (const name of names) {
      const description = section.variables[name]?.description;
      if (!description) problems.push(`${name}: no .describe() (say what it does, its default and its unit)`);
      parts.push(`| \`${name}\` | ${cell(description ?? "")} |`);
    }
    parts.push("");
  }
  if (problems.length > 0) throw new Error(`docs/configuration.md cannot be generated:\n  ${problems.join("\n  ")}`);
  return `${parts.join("\n").trimEnd()}\n`;
}

function main(): void {
  const page = renderConfigurationDoc();
  if (process.argv.includes("--check")) {
    const committed = readFileSync(CONFIGURATION_DOC, "utf8");
    if (committed !== page) {
      console.error("docs/configuration.md differs from the configuration schema: run `npm run docs:config` and commit it.");
      process.exit(1);
    }
    console.log("docs/configuration.md matches the configuration schema.");
    return;
  }
  writeFileSync(CONFIGURATION_DOC, page);
  console.log(`wrote ${path.relative(process.cwd(), CONFIGURATION_DOC)}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

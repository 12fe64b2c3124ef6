// What `paygate --help` and each command's usage say. One table: the overall usage, a group's usage
// (`paygate merchant --help`) and a command's own `--help` are all drawn from it.
import { CRYPTO_CURRENCIES } from "../core/money/currencies.ts";
import { EVM_NETWORK_SLUGS, NETWORK_SLUGS } from "../core/networks.ts";

/** The networks forwarders and flush rules take, as a synopsis writes them. */
const EVM_NETWORKS = EVM_NETWORK_SLUGS.join("|");

const CRYPTOS = CRYPTO_CURRENCIES.map((c) => c.slug).join(", ");

export interface CommandSpec {
  /** The words after `paygate`: "merchant create". */
  path: string;
  /** The synopsis after the path, one string per printed line (later ones aligned under the first). */
  synopsis: string[];
  /** What it does, as printed under the synopsis (lines of at most ~80 characters). */
  about: string;
}

export const COMMANDS = {
  merchantCreate: {
    path: "merchant create",
    synopsis: ["--name NAME [--webhook-url URL] [--test-webhook-url URL]", "[--kyb none|pending|verified|rejected] [--owner-email EMAIL] [--json]"],
    about: `Create a merchant with test and live keys and test-network wallets for every currency.
Secrets are printed once; store them now. --webhook-url receives live-mode events (https on a
public address); --test-webhook-url receives test-mode events (http://127.0.0.1:… is fine).
--owner-email makes its first dashboard user, an owner, and prints a one-time sign-in link.`,
  },
  merchantUpdate: {
    path: "merchant update",
    synopsis: [
      `ID [--active true|false] [--webhook-url URL|""] [--test-webhook-url URL|""]`,
      "   [--kyb STATUS] [--wallet CURRENCY[@NETWORK]=EXTENDED_PUBLIC_KEY ...] [--default-network CURRENCY=NETWORK ...]",
      "   [--mode live|test] [--json]",
    ],
    about: `Change a merchant ("" removes a URL). --wallet sets the wallet that receives CURRENCY (${CRYPTOS})
in --mode (default live), on its default network or on NETWORK (USDT@bsc=xpub…, USDT@tron=…); give the
account-level extended public key, never a private key.
--default-network sets the network CURRENCY is paid on in --mode when an initiate names none
(e.g. USDT=tron); the merchant needs a wallet on it.`,
  },
  merchantPricing: {
    path: "merchant pricing",
    synopsis: [`ID [--spread PERCENT] [--sources PROVIDER,PROVIDER...|""] [--json]`],
    about: `Show or set a merchant's pricing. --spread takes PERCENT (e.g. 1.5) off the market rate in the
merchant's favour at initiate: the customer sends that much more coin (0 removes it). --sources
chooses the live price providers and their order from PAYGATE_PRICE_FEED ("" gives the choice
back to the operator). Without either, prints the pricing.`,
  },
  paymentLinkCreate: {
    path: "payment-link create",
    synopsis: ["--merchant ID [--live] [--json]"],
    about: "Create a payment link (pl_…) for test mode, or live mode with --live.",
  },
  paymentLinkList: {
    path: "payment-link list",
    synopsis: ["--merchant ID [--json]"],
    about: "A merchant's payment links, newest first: mode, active or not, and the transactions each started.",
  },
  paymentLinkDeactivate: {
    path: "payment-link deactivate",
    synopsis: ["SLUG --merchant ID [--json]"],
    about: "Deactivate a payment link: it starts no more transactions; those it started go on.",
  },
  userCreate: {
    path: "user create",
    synopsis: ["--merchant ID --email EMAIL --role owner|developer|viewer [--password-stdin] [--json]"],
    about: `Create a dashboard user of a merchant and print a one-time sign-in link (valid 24 hours,
PAYGATE_PUBLIC_URL/dashboard/welcome#…) that lets the user set a password; or, with
--password-stdin, take the password from standard input (at least 10 characters). An e-mail
belongs to one user across all merchants.`,
  },
  userSignInLink: {
    path: "user sign-in-link",
    synopsis: ["--email EMAIL [--json]"],
    about: `Print a new one-time sign-in link (valid 24 hours) for a dashboard user locked out: a lost
password, or a first link that was never used. Using it sets a new password and ends the user's
other sessions. Works while the service runs. Recorded in the merchant's audit log as the operator's.`,
  },
  userResetSecondFactor: {
    path: "user reset-second-factor",
    synopsis: ["--email EMAIL [--json]"],
    about: `Turn off a dashboard user's second factors (its authenticator app and recovery codes, and its
security keys), for a user who lost them: it signs in with its password again and can set up new
ones. Recorded in the merchant's audit log as the operator's.`,
  },
  userEmailNotices: {
    path: "user email-notices",
    synopsis: ["--email EMAIL --enabled true|false [--json]"],
    about: `Turn a dashboard user's e-mail notices on or off: a payment received and a webhook endpoint
disabled, an unmatched receipt, sent to the user over PAYGATE_SMTP_URL (docs/email.md). Off by default; each user can also
set its own on the dashboard's Security page.`,
  },
  userNoticeLanguage: {
    path: "user notice-language",
    synopsis: ["--email EMAIL --locale en|fr|es|pt|de|ar [--json]"],
    about: `Set the language of a dashboard user's e-mail notices (English by default). Each user can
also set its own on the dashboard's Security page.`,
  },
  testRatesList: {
    path: "test-rates list",
    synopsis: ["[--json]"],
    about: "Show the rate test mode prices each pair at: set by an operator, or the default.",
  },
  testRatesSet: {
    path: "test-rates set",
    synopsis: ["CRYPTO FIAT RATE [--json]"],
    about: `Set test mode's price of one CRYPTO (${CRYPTOS}) in FIAT (USD, NGN):
RATE units of FIAT per coin, a positive decimal. Applies to the next test initiate.`,
  },
  worker: {
    path: "worker",
    synopsis: [],
    about: `Run the background jobs until stopped (Ctrl-C): webhook delivery, checkout expiry and the
payment watcher. The service runs them too unless PAYGATE_WEBHOOK_DISPATCHER,
PAYGATE_EXPIRY_SCHEDULER or PAYGATE_PAYMENT_WATCHER is false; any number of workers may share
one PostgreSQL database.`,
  },
  webhooksList: {
    path: "webhooks list",
    synopsis: ["[--merchant ID] [--state pending|delivered|failed|skipped] [--transaction ID]", "[--limit N] [--json]"],
    about: "Recent events, newest first, with their delivery attempts.",
  },
  webhooksRedeliver: {
    path: "webhooks redeliver",
    synopsis: ["EVENT_ID [--json]"],
    about: "Send an event again now (same webhook-id); if that fails, it is retried on the schedule.",
  },
  webhooksRotateSecret: {
    path: "webhooks rotate-secret",
    synopsis: ["--merchant ID [--json]"],
    about: `Make a new webhook signing secret (printed once). For 24 hours every delivery carries a
signature by the old secret and one by the new, so receivers switch without missing one.`,
  },
  webhooksSendTest: {
    path: "webhooks send-test",
    synopsis: ["--merchant ID [--mode test|live] [--json]"],
    about: `POST a signed webhook.test event to the merchant's URL for --mode (default test) now and
show the answer. Not a payment event: nothing is stored or retried.`,
  },
  webhookEndpointsCreate: {
    path: "webhook-endpoints create",
    synopsis: ["--merchant ID --url URL [--mode test|live] [--events TYPE,TYPE|*]", "[--description TEXT] [--json]"],
    about: `Add a webhook endpoint (we_…) that receives the events named (default *), signed with a
secret of its own (printed once). The mode's first endpoint is the merchant's webhook URL.`,
  },
  webhookEndpointsList: {
    path: "webhook-endpoints list",
    synopsis: ["--merchant ID [--mode test|live] [--json]"],
    about: "A merchant's webhook endpoints of one mode: URL, events, enabled or disabled (and why). Never a secret.",
  },
  webhookEndpointsUpdate: {
    path: "webhook-endpoints update",
    synopsis: [
      "ENDPOINT_ID --merchant ID [--mode test|live] [--url URL] [--events TYPE,TYPE|*]",
      "[--description TEXT] [--disable | --enable [--redeliver-missed]] [--json]",
    ],
    about: `Change an endpoint; --enable re-enables one (disabled by hand, or after failing every attempt
for PAYGATE_WEBHOOK_DISABLE_AFTER_HOURS), --redeliver-missed sending again what it missed.`,
  },
  webhookEndpointsDelete: {
    path: "webhook-endpoints delete",
    synopsis: ["ENDPOINT_ID --merchant ID [--mode test|live] [--json]"],
    about: "Delete an endpoint and its delivery log; deleting the mode's first removes the merchant's webhook URL.",
  },
  webhookEndpointsRotateSecret: {
    path: "webhook-endpoints rotate-secret",
    synopsis: ["ENDPOINT_ID --merchant ID [--mode test|live] [--json]"],
    about: "A new signing secret for the endpoint (printed once); the old one also signs for 24 hours.",
  },
  webhookEndpointsDeliveries: {
    path: "webhook-endpoints deliveries",
    synopsis: ["ENDPOINT_ID --merchant ID [--mode test|live] [--status failed|succeeded|pending]", "[--limit N] [--json]"],
    about: "The endpoint's delivery log, newest first: event, status, attempts, status code, latency, time.",
  },
  listen: {
    path: "listen",
    synopsis: ["--forward-to URL [--api-url URL] [--api-key sec_test_…] [--events TYPE,TYPE]"],
    about: `Forward a running paygate's new events (its live event stream, GET /v1/events/stream) to a
local receiver, signed with a secret made for this session (printed when ready), one line per
delivery with the receiver's status. --api-url: the service (default PAYGATE_API_URL, else
http://127.0.0.1:3000); --api-key: a secret key (default PAYGATE_SECRET_KEY), whose mode is the
one followed. Reconnects and resumes when the stream drops; Ctrl-C stops it, leaving nothing behind.`,
  },
  keysList: {
    path: "keys list",
    synopsis: ["--merchant ID [--json]"],
    about: "A merchant's API keys: prefix, kind, mode, created, and when a rolled key ends. Never a secret.",
  },
  keysRoll: {
    path: "keys roll",
    synopsis: ["--merchant ID --mode test|live --kind public|secret", "--old-expires now|1h|24h [--json]"],
    about: `Make a new key (printed once) of one kind and mode. The key it replaces keeps working for
--old-expires (now, 1h or 24h), so the new one can be deployed first.`,
  },
  holdings: {
    path: "holdings",
    synopsis: ["--merchant ID [--mode test|live] [--network NETWORK] [--limit N] [--csv | --json]"],
    about: `What the merchant's handed-out payment addresses hold now, read from the chain nodes: per
address and network the coin paid there and the network's fee coin (ETH, BNB, TRX…), which moving
a token off the address needs. "needs fee coin" marks a token held with no fee coin beside it.
--mode: test (the default) or live; --network: only that network (${NETWORK_SLUGS.join(", ")});
--limit: the newest N addresses (default 200); --csv: the list as CSV.`,
  },
  settlementConsolidate: {
    path: "settlement consolidate",
    synopsis: [
      "--merchant ID --coin BTC|LTC --destination ADDRESS --fee-rate SAT_PER_VB",
      "[--mode test|live] [--network NETWORK] [--max-inputs N] [--json]",
    ],
    about: `An unsigned PSBT (co_…) spending the outputs of the merchant's settled payments in that coin to
its own address: sign it in the merchant's wallet and broadcast it; paygate sees it mined.`,
  },
  settlementList: {
    path: "settlement list",
    synopsis: ["--merchant ID [--mode test|live] [--json]"],
    about: "A merchant's consolidations of one mode, newest first: state, outputs, amounts, transaction id.",
  },
  settlementCancel: {
    path: "settlement cancel",
    synopsis: ["CONSOLIDATION_ID --merchant ID [--mode test|live] [--json]"],
    about: "Cancel an open consolidation (not yet seen on the chain): its outputs are offered again.",
  },
  settlementForwarders: {
    path: "settlement forwarders",
    synopsis: ["--merchant ID [--mode test|live] [--json]"],
    about: "The EVM networks on which a merchant's new payments of one mode go to deposit forwarders, and their destination.",
  },
  settlementForwarderSet: {
    path: "settlement forwarder-set",
    synopsis: [`--merchant ID --network ${EVM_NETWORKS} --destination ADDRESS [--mode test|live] [--json]`],
    about: `New payments on the network get a deposit forwarder whose only destination is ADDRESS (refused when it
does not take the network's coin); payments already initiated keep theirs.`,
  },
  settlementForwarderRemove: {
    path: "settlement forwarder-remove",
    synopsis: [`--merchant ID --network ${EVM_NETWORKS} [--mode test|live]`],
    about: "New payments on the network get the key's own addresses again; forwarders handed out are still flushed.",
  },
  settlementFlush: {
    path: "settlement flush",
    synopsis: [`--merchant ID --network ${EVM_NETWORKS} [--mode test|live] [--json]`],
    about: `One factory transaction, paid by the operator's fee payer, that creates and empties the forwarders of the
merchant's settled payments on the network into its settlement address (fl_…).`,
  },
  settlementFlushes: {
    path: "settlement flushes",
    synopsis: ["--merchant ID [--mode test|live] [--json]"],
    about: "A merchant's flushes of one mode, newest first: state, forwarders, transaction, gas and fee.",
  },
  settlementFlushRules: {
    path: "settlement flush-rules",
    synopsis: ["--merchant ID [--mode test|live] [--json]"],
    about: "When the flush job flushes the merchant's settled forwarders, per network; none: the operator's thresholds.",
  },
  settlementFlushRuleSet: {
    path: "settlement flush-rule-set",
    synopsis: [
      `--merchant ID --network ${EVM_NETWORKS} [--min-payments N] [--min-value AMOUNT --value-currency USD|NGN]`,
      "[--max-age-hours H] [--mode test|live] [--json]",
    ],
    about: `The job flushes as soon as one threshold holds; one left out is the operator's
(PAYGATE_FLUSH_MIN_PAYMENTS, PAYGATE_FLUSH_MAX_AGE_HOURS), value has none.`,
  },
  settlementFlushRuleRemove: {
    path: "settlement flush-rule-remove",
    synopsis: [`--merchant ID --network ${EVM_NETWORKS} [--mode test|live]`],
    about: "The operator's thresholds apply to the network again.",
  },
  settlementSweepPlan: {
    path: "settlement sweep-plan",
    synopsis: [
      "--merchant ID --network NETWORK [--destination ADDRESS] [--coin COIN] [--limit N]",
      "[--starting-after TRANSACTION_ID] [--mode test|live] [--json]",
    ],
    about: `What the per-payment addresses of the merchant's settled payments on an account network (EVM, tron)
hold now, the fee coin moving each to ADDRESS needs (from the node), the totals and the share of the
value the fees take. Moves nothing: --json writes the plan the sweep tool (tools/sweep) reads with --plan.
--destination: default the network's forwarder setting's address; --limit: payments read (default 100).`,
  },
  settlementSweepRecord: {
    path: "settlement sweep-record",
    synopsis: ["--merchant ID --network NETWORK (--tx-hash HASH [--top-up HASH] | --file REPORT.json)", "[--mode test|live] [--json]"],
    about: `Records sweeps the merchant sent from its payment addresses in the ledger: each transaction is read
from the network's node (from a payment address, what it moved, its fee) with the fee wallet's top-up
that paid its gas. --file: what \`tools/sweep --execute --report\` printed. Recording one again gives it back.`,
  },
  settlementSweeps: {
    path: "settlement sweeps",
    synopsis: ["--merchant ID [--network NETWORK] [--mode test|live] [--json]"],
    about: "The merchant's recorded sweeps of one mode, newest first: what moved, to where, the fee and the top-up's.",
  },
  settlementOwnAddresses: {
    path: "settlement own-addresses",
    synopsis: ["--merchant ID [--mode test|live] [--json]"],
    about: "The TRON networks on which a merchant's new payments of one mode go to its own addresses, told apart by unique amounts.",
  },
  settlementOwnAddressesSet: {
    path: "settlement own-addresses-set",
    synopsis: ["--merchant ID --count K [--network tron] [--mode test|live] [--json]"],
    about: `New TRON payments go to the first K (1 to 10) own addresses of the merchant's key, each amount made unique
by a few base units; payments already initiated keep their address and amount.`,
  },
  settlementOwnAddressesRemove: {
    path: "settlement own-addresses-remove",
    synopsis: ["--merchant ID [--network tron] [--mode test|live]"],
    about: "New TRON payments get a fresh address each again.",
  },
  settlementUnmatched: {
    path: "settlement unmatched",
    synopsis: ["--merchant ID [--state open|assigned|refunded] [--mode test|live] [--json]"],
    about: "Transfers to the merchant's own TRON addresses that matched no open amount, newest first.",
  },
  settlementUnmatchedAssign: {
    path: "settlement unmatched-assign",
    synopsis: ["RECEIPT_ID --merchant ID --transaction TRANSACTION_ID [--mode test|live] [--json]"],
    about: "The transaction (paid on the same address) counts the transfer as its receipt. Audited.",
  },
  settlementUnmatchedRefund: {
    path: "settlement unmatched-refund",
    synopsis: ["RECEIPT_ID --merchant ID --tx-hash HASH [--mode test|live] [--json]"],
    about: "Marks the transfer refunded with the refund transaction you sent from your own wallet. Audited.",
  },
  invoicesCreate: {
    path: "invoices create",
    synopsis: [
      "--merchant ID --email EMAIL --currency USD|NGN --item DESCRIPTION=QUANTITYxUNIT_PRICE ...",
      "[--name NAME] [--tax NAME=RATE ...] [--memo TEXT] [--due-date YYYY-MM-DD] [--allow-partial]",
      "[--locale en|fr|es|pt|de|ar] [--finalize] [--mode test|live] [--json]",
    ],
    about: `A draft invoice (inv_…) to a customer: line items (--item "Logo design=2x150.00", repeatable),
tax lines in percent of the subtotal (--tax "VAT=7.5"). --finalize numbers it and opens its page
at once; --allow-partial lets the customer pay it in parts; --locale sets its language (its e-mails,
reminders, PDF and page).`,
  },
  invoicesList: {
    path: "invoices list",
    synopsis: ["--merchant ID [--mode test|live] [--limit N] [--json]"],
    about: "A merchant's invoices of one mode, newest first: number, state, total, paid, left, customer.",
  },
  invoicesShow: {
    path: "invoices show",
    synopsis: ["INVOICE_ID --merchant ID [--mode test|live] [--json]"],
    about: "One invoice: its items, taxes, totals, what was paid and what is left, its transactions and page.",
  },
  invoicesUpdate: {
    path: "invoices update",
    synopsis: ["INVOICE_ID --merchant ID --locale en|fr|es|pt|de|ar|none [--mode test|live] [--json]"],
    about: "Sets the invoice's language (its e-mails, reminders, PDF and page) while a draft or not yet paid.",
  },
  invoicesFinalize: {
    path: "invoices finalize",
    synopsis: ["INVOICE_ID --merchant ID [--mode test|live] [--json]"],
    about: "A draft becomes open with the merchant's next number (INV-0001…); prints the page to send.",
  },
  invoicesVoid: {
    path: "invoices void",
    synopsis: ["INVOICE_ID --merchant ID [--mode test|live] [--json]"],
    about: "Void a draft or an open invoice nothing was paid of: its page no longer takes payments.",
  },
  ledgerList: {
    path: "ledger list",
    synopsis: [
      "--merchant ID [--mode test|live] [--from WHEN] [--to WHEN] [--coin COIN]",
      "[--network NETWORK] [--kind receipt|refund|consolidation] [--limit N] [--json]",
    ],
    about: `A merchant's ledger entries of one mode, newest first: confirmed receipts, succeeded refunds
and confirmed consolidations, with network, transaction hash, amount and fee (docs/ledger.md).`,
  },
  ledgerTotals: {
    path: "ledger totals",
    synopsis: ["--merchant ID [--mode test|live] [--from WHEN] [--to WHEN] [--coin COIN] [--network NETWORK] [--json]"],
    about: "The entries' sums per coin and network: received, refunded, consolidated, fees, and net.",
  },
  ledgerExport: {
    path: "ledger export",
    synopsis: ["--merchant ID --from WHEN --to WHEN [--mode test|live] [--coin COIN] [--network NETWORK] [--out FILE]"],
    about: `The period's entries as CSV (one header row, exact decimals, formula-like cells defused): to
FILE, saying how many it wrote, or to standard output.`,
  },
} satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

/** The groups of commands (`paygate merchant …`) and what they are about. */
export const GROUPS: Record<string, string> = {
  merchant: "Create and change merchants: keys, webhook URLs, KYB status and wallets.",
  "payment-link": "Payment links (pl_…): they start a merchant's transactions without its API key.",
  "test-rates": "The prices test mode quotes at.",
  invoices: "Invoices (inv_…): payment requests to a customer, with a hosted page to pay them.",
  settlement: "Consolidations (co_…) of settled BTC and LTC outputs, and deposit forwarders and their flushes (fl_…) on EVM networks.",
  ledger: "A merchant's ledger: receipts, refunds and consolidations, their totals per coin and network, CSV per period.",
  user: "Dashboard users (/dashboard): who may sign in for a merchant, with which role.",
  webhooks: "Webhook events and their delivery attempts, test events and the signing secret.",
  "webhook-endpoints": "A merchant's webhook endpoints (we_…): several receivers per mode, each with its events and secret.",
  keys: "A merchant's API keys: list them, roll one with an overlap.",
};

const ENVIRONMENT = "Environment: DATABASE_URL, PAYGATE_DATA_DIR, PAYGATE_ENCRYPTION_KEY (see docs/configuration.md).";

/** "Usage: paygate merchant create --name …", continuation lines aligned under the first. */
export function synopsisLines(spec: CommandSpec, prefix: string): string {
  const head = `${prefix}${spec.path}`;
  const [first, ...rest] = spec.synopsis;
  if (first === undefined) return head;
  const indent = " ".repeat(head.length + 1);
  return [`${head} ${first}`, ...rest.map((line) => indent + line)].join("\n");
}

/** The listing of commands: synopsis, then what it does, indented. */
function listing(specs: CommandSpec[]): string {
  return specs
    .map(
      (spec) =>
        `${synopsisLines(spec, "  ")}\n${spec.about
          .split("\n")
          .map((line) => `      ${line}`)
          .join("\n")}`,
    )
    .join("\n");
}

/** `paygate --help`: every command. */
export function overallUsage(): string {
  return `Usage: paygate <command> [options]

Commands:
${listing(Object.values(COMMANDS))}

Run 'paygate <command> --help' (or 'paygate help <command>') for a command's options.
${ENVIRONMENT}
`;
}

/** `paygate merchant --help`: the group's commands. */
export function groupUsage(group: string): string {
  const specs = Object.values(COMMANDS).filter((spec) => spec.path.startsWith(`${group} `));
  return `Usage: paygate ${group} <command> [options]

${GROUPS[group] ?? ""}

Commands:
${listing(specs)}

Run 'paygate ${group} <command> --help' for a command's options.
`;
}

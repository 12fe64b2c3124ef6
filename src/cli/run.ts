// `paygate`: the operator's stand-in for a merchant dashboard, on commander. runCli parses one command
// line and runs it against the context's environment and output, and answers the exit code: 0 done
// (or help shown), 1 a refused change or a configuration problem, 2 bad arguments (with the usage).
// src/cli/main.ts runs it for the process; tests run it in theirs.
import { inspect } from "node:util";
import { Command, type CommanderError } from "commander";
import { ConfigError } from "../env.ts";
import { PaygateError } from "../core/errors.ts";
import { CRYPTO_CURRENCIES } from "../core/money/currencies.ts";
import * as commands from "./commands.ts";
import { listen, type ListenOptions } from "./listen.ts";
import * as endpoints from "./webhook-endpoints.ts";
import * as own from "./own-addresses.ts";
import * as settlement from "./settlement.ts";
import * as invoices from "./invoices.ts";
import * as ledger from "./ledger.ts";
import { UsageError, type CliContext } from "./commands.ts";
import { COMMANDS, GROUPS, groupUsage, overallUsage, type CommandName } from "./usage.ts";
import { EVM_NETWORK_SLUGS } from "../core/networks.ts";

export type { CliContext, CliOutput } from "./commands.ts";

/** Runs one `paygate` command line (the arguments after `paygate`) and answers its exit code. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  // `paygate`, `paygate help` and `paygate help merchant create` are the --help of what they name.
  const args = argv.length === 0 ? ["--help"] : argv[0] === "help" ? [...argv.slice(1), "--help"] : [...argv];
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(args, { from: "user" });
    return 0;
  } catch (error) {
    return report(error, ctx);
  }
}

/** Help was printed: exit 0 (or 2, when commander printed it for a command line it could not use). */
class HelpShown extends Error {
  constructor(readonly exitCode: number) {
    super("help shown");
  }
}

/** A usage error of a known command: the usage printed after the message is that command's. */
class CommandUsageError extends UsageError {
  constructor(
    message: string,
    readonly command: Command,
  ) {
    super(message);
  }
}

function report(error: unknown, ctx: CliContext): number {
  if (error instanceof HelpShown) return error.exitCode === 0 ? 0 : 2;
  if (error instanceof CommandUsageError) {
    ctx.stderr.write(`paygate: ${error.message}\n\n${usageAfterError(error.command)}`);
    return 2;
  }
  if (error instanceof UsageError) {
    ctx.stderr.write(`paygate: ${error.message}\n\n${overallUsage()}`);
    return 2;
  }
  // A refusal of the core (an unknown merchant, a bad wallet key) says what is wrong; so does bad configuration.
  if (
    error instanceof PaygateError ||
    error instanceof ConfigError ||
    (error instanceof Error && (error.name === "EmbeddedDatabaseBusyError" || error.name === "ListenError"))
  ) {
    // A validation refusal names each field below its summary, as the REST body's `errors` does.
    const fields = error instanceof PaygateError ? (error.errors ?? []).filter((e) => !error.message.includes(e.message)) : [];
    ctx.stderr.write(`paygate: ${error.message}\n${fields.map((e) => `  ${e.field}: ${e.message}\n`).join("")}`);
    return 1;
  }
  ctx.stderr.write(`paygate: unexpected error: ${inspect(error)}\n`);
  return 1;
}

/** After an error in `merchant create`, the usage of `merchant` (all its commands); else the command's own. */
function usageAfterError(command: Command): string {
  const group = command.commands.length === 0 && command.parent?.parent ? command.parent : command;
  return group.helpInformation({ error: true });
}

function buildProgram(ctx: CliContext): Command {
  const program = new Command("paygate");
  setUp(program, ctx);
  program.configureHelp({ formatHelp: () => overallUsage() });
  program.helpCommand(false); // `paygate help …` is turned into --help above

  const merchant = group(program, "merchant", ctx);
  const create = leaf(merchant, "merchantCreate", ctx)
    .option("--name <name>", "the merchant's name (required)")
    .option("--webhook-url <url>", "where live-mode events go: https on a public host")
    .option(
      "--test-webhook-url <url>",
      "where test-mode events go; any http(s) URL, e.g. http://127.0.0.1:4000/webhooks where private hosts are allowed (PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE)",
    )
    .option("--kyb <status>", "KYB status: none (the default), pending, verified or rejected")
    .option("--owner-email <email>", "make the merchant's first dashboard user, an owner, and print its one-time sign-in link")
    .option("--json", "print one JSON object");
  act(create, () => commands.merchantCreate(ctx, create.opts<commands.MerchantCreateOptions>()));

  const update = leaf(merchant, "merchantUpdate", ctx)
    .argument("<ID>", "the merchant's id")
    .option("--active <bool>", "true or false: an inactive merchant's keys and links are refused")
    .option("--webhook-url <url>", 'where live-mode events go: https on a public host; "" removes it')
    .option("--test-webhook-url <url>", 'where test-mode events go; "" removes it')
    .option("--kyb <status>", "KYB status: none, pending, verified or rejected")
    .option(
      "--wallet <currency=key>",
      "CURRENCY=EXTENDED_PUBLIC_KEY: the account-level key of the wallet that receives CURRENCY; repeatable",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      "--default-network <currency=network>",
      "CURRENCY=NETWORK: the network CURRENCY is paid on when an initiate names none (e.g. USDT=tron); needs a wallet there; repeatable",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option("--mode <mode>", "live (the default) or test: the mode of the --wallet keys and --default-network")
    .option("--json", "print one JSON object");
  act(update, () => commands.merchantUpdate(ctx, update.args[0], update.opts<commands.MerchantUpdateOptions>()));

  const pricing = leaf(merchant, "merchantPricing", ctx)
    .argument("<ID>", "the merchant's id")
    .option("--spread <percent>", "percent off the market rate in the merchant's favour, e.g. 1.5; 0 removes it")
    .option("--sources <providers>", 'price providers in order, comma-separated (e.g. coinbase,kraken); "" gives the choice back to the operator')
    .option("--json", "print one JSON object");
  act(pricing, () => commands.merchantPricing(ctx, pricing.args[0], pricing.opts<commands.MerchantPricingOptions>()));

  const paymentLink = group(program, "payment-link", ctx);
  const linkCreate = leaf(paymentLink, "paymentLinkCreate", ctx)
    .option("--merchant <id>", "the merchant's id (required)")
    .option("--live", "a live-mode link (default: test mode)")
    .option("--json", "print one JSON object");
  act(linkCreate, () => commands.paymentLinkCreate(ctx, linkCreate.opts<commands.PaymentLinkCreateOptions>()));

  const linkList = leaf(paymentLink, "paymentLinkList", ctx)
    .option("--merchant <id>", "the merchant's id (required)")
    .option("--json", "print one JSON object");
  act(linkList, () => commands.paymentLinkList(ctx, linkList.opts<commands.MerchantOption>()));

  const linkDeactivate = leaf(paymentLink, "paymentLinkDeactivate", ctx)
    .argument("<SLUG>", "the link (pl_…), as payment-link list shows it")
    .option("--merchant <id>", "the merchant's id (required)")
    .option("--json", "print one JSON object");
  act(linkDeactivate, () => commands.paymentLinkDeactivate(ctx, linkDeactivate.args[0] ?? "", linkDeactivate.opts<commands.MerchantOption>()));

  const user = group(program, "user", ctx);
  const userCreate = leaf(user, "userCreate", ctx)
    .option("--merchant <id>", "the merchant's id (required)")
    .option("--email <email>", "the user's e-mail (required)")
    .option("--role <role>", "owner, developer or viewer (required)")
    .option("--password-stdin", "read the password from standard input instead of printing a sign-in link")
    .option("--json", "print one JSON object");
  act(userCreate, () => commands.userCreate(ctx, userCreate.opts<commands.UserCreateOptions>()));

  const userLink = leaf(user, "userSignInLink", ctx)
    .option("--email <email>", "the user's e-mail (required)")
    .option("--json", "print the link as JSON");
  act(userLink, () => commands.userSignInLink(ctx, userLink.opts<commands.UserResetOptions>()));

  const userReset = leaf(user, "userResetSecondFactor", ctx)
    .option("--email <email>", "the user's e-mail (required)")
    .option("--json", "print one JSON object");
  act(userReset, () => commands.userResetSecondFactor(ctx, userReset.opts<commands.UserResetOptions>()));

  const userNotices = leaf(user, "userEmailNotices", ctx)
    .option("--email <email>", "the user's e-mail (required)")
    .option("--enabled <true|false>", "turn its notices on or off (required)")
    .option("--json", "print one JSON object");
  act(userNotices, () => commands.userEmailNotices(ctx, userNotices.opts<commands.UserNoticesOptions>()));

  const userNoticeLanguage = leaf(user, "userNoticeLanguage", ctx)
    .option("--email <email>", "the user's e-mail (required)")
    .option("--locale <locale>", "en, fr, es, pt, de or ar (required)")
    .option("--json", "print one JSON object");
  act(userNoticeLanguage, () => commands.userNoticeLanguage(ctx, userNoticeLanguage.opts<commands.UserNoticeLanguageOptions>()));

  const testRates = group(program, "test-rates", ctx);
  const ratesList = leaf(testRates, "testRatesList", ctx).option("--json", "print one JSON object");
  act(ratesList, () => commands.testRatesList(ctx, ratesList.opts<commands.JsonOption>()));

  const ratesSet = leaf(testRates, "testRatesSet", ctx)
    .argument("<CRYPTO>", `the coin: ${CRYPTO_CURRENCIES.map((c) => c.slug).join(", ")}`)
    .argument("<FIAT>", "the fiat currency: USD or NGN")
    .argument("<RATE>", "units of FIAT per coin, a positive decimal (at most 18 decimal places)")
    .option("--json", "print one JSON object");
  act(ratesSet, () => {
    const [crypto = "", fiat = "", rate = ""] = ratesSet.args;
    return commands.testRatesSet(ctx, crypto, fiat, rate, ratesSet.opts<commands.JsonOption>());
  });

  const worker = leaf(program, "worker", ctx);
  act(worker, () => commands.worker(ctx));

  const webhooks = group(program, "webhooks", ctx);
  const eventsList = leaf(webhooks, "webhooksList", ctx)
    .option("--merchant <id>", "only this merchant's events")
    .option("--state <state>", "only events in this state: pending, delivered, failed or skipped")
    .option("--transaction <id>", "only this transaction's events")
    .option("--limit <n>", "at most this many events, 1 to 1000 (default: 50)")
    .option("--json", "print one JSON object");
  act(eventsList, () => commands.webhooksList(ctx, eventsList.opts<commands.WebhooksListOptions>()));

  const redeliver = leaf(webhooks, "webhooksRedeliver", ctx)
    .argument("<EVENT_ID>", "the event's id (evt_…), as webhooks list shows it")
    .option("--json", "print one JSON object");
  act(redeliver, () => commands.webhooksRedeliver(ctx, redeliver.args[0] ?? "", redeliver.opts<commands.JsonOption>()));

  const rotate = leaf(webhooks, "webhooksRotateSecret", ctx)
    .option("--merchant <id>", "the merchant's id (required)")
    .option("--json", "print one JSON object");
  act(rotate, () => commands.webhooksRotateSecret(ctx, rotate.opts<commands.MerchantOption>()));

  const sendTest = leaf(webhooks, "webhooksSendTest", ctx)
    .option("--merchant <id>", "the merchant's id (required)")
    .option("--mode <mode>", "test (the default) or live: whose URL receives it")
    .option("--json", "print one JSON object");
  act(sendTest, () => commands.webhooksSendTest(ctx, sendTest.opts<commands.SendTestOptions>()));

  const endpointGroup = group(program, "webhook-endpoints", ctx);
  const endpointCommand = (name: CommandName, withId: boolean) => {
    const command = leaf(endpointGroup, name, ctx);
    if (withId) command.argument("<ENDPOINT_ID>", "the endpoint's id (we_…), as webhook-endpoints list shows it");
    return command.option("--merchant <id>", "the merchant's id (required)").option("--mode <mode>", "test (the default) or live");
  };
  const endpointCreate = endpointCommand("webhookEndpointsCreate", false)
    .option("--url <url>", "where the events go (required)")
    .option("--events <types>", "the event types it receives, comma-separated, or * (the default)")
    .option("--description <text>", "what it is for")
    .option("--json", "print one JSON object");
  act(endpointCreate, () => endpoints.webhookEndpointsCreate(ctx, endpointCreate.opts<endpoints.EndpointOptions>()));
  const endpointList = endpointCommand("webhookEndpointsList", false).option("--json", "print one JSON object");
  act(endpointList, () => endpoints.webhookEndpointsList(ctx, endpointList.opts<endpoints.EndpointOptions>()));
  const endpointUpdate = endpointCommand("webhookEndpointsUpdate", true)
    .option("--url <url>", "a new URL")
    .option("--events <types>", "the event types it receives, comma-separated, or *")
    .option("--description <text>", "what it is for ('' removes it)")
    .option("--disable", "stop sending to it")
    .option("--enable", "send to it again")
    .option("--redeliver-missed", "with --enable: send again what failed or was missed while it was failing or disabled")
    .option("--json", "print one JSON object");
  act(endpointUpdate, () => endpoints.webhookEndpointsUpdate(ctx, endpointUpdate.args[0] ?? "", endpointUpdate.opts<endpoints.EndpointOptions>()));
  const endpointDelete = endpointCommand("webhookEndpointsDelete", true).option("--json", "print one JSON object");
  act(endpointDelete, () => endpoints.webhookEndpointsDelete(ctx, endpointDelete.args[0] ?? "", endpointDelete.opts<endpoints.EndpointOptions>()));
  const endpointRotate = endpointCommand("webhookEndpointsRotateSecret", true).option("--json", "print one JSON object");
  act(endpointRotate, () =>
    endpoints.webhookEndpointsRotateSecret(ctx, endpointRotate.args[0] ?? "", endpointRotate.opts<endpoints.EndpointOptions>()),
  );
  const endpointDeliveries = endpointCommand("webhookEndpointsDeliveries", true)
    .option("--status <status>", "only failed, succeeded or pending deliveries")
    .option("--limit <n>", "at most this many, 1 to 100 (default: 10)")
    .option("--json", "print one JSON object");
  act(endpointDeliveries, () =>
    endpoints.webhookEndpointsDeliveries(ctx, endpointDeliveries.args[0] ?? "", endpointDeliveries.opts<endpoints.EndpointOptions>()),
  );

  const settlementGroup = group(program, "settlement", ctx);
  const settlementCommand = (name: CommandName) =>
    leaf(settlementGroup, name, ctx)
      .option("--merchant <id>", "the merchant's id (required)")
      .option("--mode <mode>", "test (the default) or live")
      .option("--json", "print one JSON object");
  const consolidate = settlementCommand("settlementConsolidate")
    .option("--coin <coin>", "BTC or LTC (required)")
    .option("--network <network>", "the coin's network (default: its default)")
    .option("--destination <address>", "an address of the merchant's own wallet (required)")
    .option("--fee-rate <sat/vB>", "the fee rate, 1 to 10000 (required)")
    .option("--max-inputs <n>", "at most this many outputs, 1 to 500 (default: 200)");
  act(consolidate, () => settlement.settlementConsolidate(ctx, consolidate.opts<settlement.SettlementOptions>()));
  const settlementListCommand = settlementCommand("settlementList");
  act(settlementListCommand, () => settlement.settlementList(ctx, settlementListCommand.opts<settlement.SettlementOptions>()));
  const settlementCancelCommand = settlementCommand("settlementCancel").argument("<CONSOLIDATION_ID>", "the consolidation's id (co_…)");
  act(settlementCancelCommand, () =>
    settlement.settlementCancel(ctx, settlementCancelCommand.args[0] ?? "", settlementCancelCommand.opts<settlement.SettlementOptions>()),
  );

  const forwardersCommand = settlementCommand("settlementForwarders");
  act(forwardersCommand, () => settlement.settlementForwarders(ctx, forwardersCommand.opts<settlement.SettlementOptions>()));
  const forwarderSet = settlementCommand("settlementForwarderSet")
    .option("--network <network>", `${EVM_NETWORK_SLUGS.join(", ")} (required)`)
    .option("--destination <address>", "the merchant's settlement address (required)");
  act(forwarderSet, () => settlement.settlementForwarderSet(ctx, forwarderSet.opts<settlement.SettlementOptions>()));
  const forwarderRemove = settlementCommand("settlementForwarderRemove").option("--network <network>", `${EVM_NETWORK_SLUGS.join(", ")} (required)`);
  act(forwarderRemove, () => settlement.settlementForwarderRemove(ctx, forwarderRemove.opts<settlement.SettlementOptions>()));
  const flushCommand = settlementCommand("settlementFlush").option("--network <network>", `${EVM_NETWORK_SLUGS.join(", ")} (required)`);
  act(flushCommand, () => settlement.settlementFlush(ctx, flushCommand.opts<settlement.SettlementOptions>()));
  const flushesCommand = settlementCommand("settlementFlushes");
  act(flushesCommand, () => settlement.settlementFlushes(ctx, flushesCommand.opts<settlement.SettlementOptions>()));
  const flushRulesCommand = settlementCommand("settlementFlushRules");
  act(flushRulesCommand, () => settlement.settlementFlushRules(ctx, flushRulesCommand.opts<settlement.SettlementOptions>()));
  const flushRuleSet = settlementCommand("settlementFlushRuleSet")
    .option("--network <network>", `${EVM_NETWORK_SLUGS.join(", ")} (required)`)
    .option("--min-payments <n>", "flush once this many settled payments wait")
    .option("--min-value <amount>", "flush once their orders add up to this (with --value-currency)")
    .option("--value-currency <fiat>", "USD or NGN")
    .option("--max-age-hours <h>", "flush once the oldest has waited this long");
  act(flushRuleSet, () => settlement.settlementFlushRuleSet(ctx, flushRuleSet.opts<settlement.SettlementOptions>()));
  const flushRuleRemove = settlementCommand("settlementFlushRuleRemove").option("--network <network>", `${EVM_NETWORK_SLUGS.join(", ")} (required)`);
  act(flushRuleRemove, () => settlement.settlementFlushRuleRemove(ctx, flushRuleRemove.opts<settlement.SettlementOptions>()));
  const sweepPlanCommand = settlementCommand("settlementSweepPlan")
    .option("--network <network>", "an account network: ethereum, bsc, base, polygon, arbitrum or tron (required)")
    .option("--destination <address>", "where the funds go (default: the network's forwarder setting)")
    .option("--coin <coin>", "only this coin's addresses")
    .option("--limit <n>", "payments read, oldest final first (default 100, at most 200)")
    .option("--starting-after <id>", "the previous plan's next_starting_after");
  act(sweepPlanCommand, () => settlement.settlementSweepPlan(ctx, sweepPlanCommand.opts<settlement.SettlementOptions>()));
  const sweepRecordCommand = settlementCommand("settlementSweepRecord")
    .option("--network <network>", "the network the sweeps were sent on: an EVM network or tron (required)")
    .option("--tx-hash <hash>", "one sweep's transaction")
    .option("--top-up <hash>", "with --tx-hash: the fee wallet's top-up that paid its gas")
    .option("--file <path>", "what tools/sweep --execute --report printed");
  act(sweepRecordCommand, () => settlement.settlementSweepRecord(ctx, sweepRecordCommand.opts<settlement.SettlementOptions>()));
  const sweepsCommand = settlementCommand("settlementSweeps").option("--network <network>", "only this EVM network's sweeps");
  act(sweepsCommand, () => settlement.settlementSweeps(ctx, sweepsCommand.opts<settlement.SettlementOptions>()));

  const ownList = settlementCommand("settlementOwnAddresses");
  act(ownList, () => own.ownAddresses(ctx, ownList.opts<own.OwnAddressOptions>()));
  const ownSet = settlementCommand("settlementOwnAddressesSet")
    .option("--count <k>", "how many own addresses, 1 to 10 (required)")
    .option("--network <network>", "tron (the default)");
  act(ownSet, () => own.ownAddressesSet(ctx, ownSet.opts<own.OwnAddressOptions>()));
  const ownRemove = settlementCommand("settlementOwnAddressesRemove").option("--network <network>", "tron (the default)");
  act(ownRemove, () => own.ownAddressesRemove(ctx, ownRemove.opts<own.OwnAddressOptions>()));
  const unmatchedList = settlementCommand("settlementUnmatched").option("--state <state>", "open, assigned or refunded");
  act(unmatchedList, () => own.unmatchedReceipts(ctx, unmatchedList.opts<own.OwnAddressOptions>()));
  const unmatchedAssign = settlementCommand("settlementUnmatchedAssign")
    .argument("<RECEIPT_ID>", "the unmatched receipt's id (ur_…)")
    .option("--transaction <id>", "the transaction it pays (required)");
  act(unmatchedAssign, () => own.unmatchedAssign(ctx, unmatchedAssign.args[0] ?? "", unmatchedAssign.opts<own.OwnAddressOptions>()));
  const unmatchedRefund = settlementCommand("settlementUnmatchedRefund")
    .argument("<RECEIPT_ID>", "the unmatched receipt's id (ur_…)")
    .option("--tx-hash <hash>", "the refund transaction sent from your wallet (required)");
  act(unmatchedRefund, () => own.unmatchedRefund(ctx, unmatchedRefund.args[0] ?? "", unmatchedRefund.opts<own.OwnAddressOptions>()));

  const invoiceGroup = group(program, "invoices", ctx);
  const invoiceCommand = (name: CommandName, withId: boolean) => {
    const command = leaf(invoiceGroup, name, ctx);
    if (withId) command.argument("<INVOICE_ID>", "the invoice's id (inv_…), as invoices list shows it");
    return command
      .option("--merchant <id>", "the merchant's id (required)")
      .option("--mode <mode>", "test (the default) or live")
      .option("--json", "print one JSON object");
  };
  const repeat = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
  const invoiceCreate = invoiceCommand("invoicesCreate", false)
    .option("--email <email>", "the customer's e-mail (required)")
    .option("--name <name>", "the customer's name")
    .option("--currency <currency>", "USD or NGN (required)")
    .option("--item <line>", 'DESCRIPTION=QUANTITYxUNIT_PRICE, e.g. "Logo design=2x150.00"; repeatable (one at least)', repeat)
    .option("--tax <tax>", 'NAME=RATE in percent of the subtotal, e.g. "VAT=7.5"; repeatable', repeat)
    .option("--memo <text>", "a note to the customer")
    .option("--due-date <day>", "YYYY-MM-DD: unpaid after that day, it is overdue")
    .option("--allow-partial", "the customer may pay it in parts")
    .option("--locale <locale>", "its language: en, fr, es, pt, de or ar (its e-mails, PDF and page)")
    .option("--finalize", "number it and open its page now (default: a draft)");
  act(invoiceCreate, () => invoices.invoicesCreate(ctx, invoiceCreate.opts<invoices.InvoiceOptions>()));
  const invoiceList = invoiceCommand("invoicesList", false).option("--limit <n>", "at most this many, 1 to 100 (default: 100)");
  act(invoiceList, () => invoices.invoicesList(ctx, invoiceList.opts<invoices.InvoiceOptions>()));
  const invoiceShow = invoiceCommand("invoicesShow", true);
  act(invoiceShow, () => invoices.invoicesShow(ctx, invoiceShow.args[0] ?? "", invoiceShow.opts<invoices.InvoiceOptions>()));
  const invoiceUpdate = invoiceCommand("invoicesUpdate", true).option("--locale <locale>", "en, fr, es, pt, de, ar, or none (required)");
  act(invoiceUpdate, () => invoices.invoicesUpdate(ctx, invoiceUpdate.args[0] ?? "", invoiceUpdate.opts<invoices.InvoiceOptions>()));
  const invoiceFinalize = invoiceCommand("invoicesFinalize", true);
  act(invoiceFinalize, () => invoices.invoicesFinalize(ctx, invoiceFinalize.args[0] ?? "", invoiceFinalize.opts<invoices.InvoiceOptions>()));
  const invoiceVoid = invoiceCommand("invoicesVoid", true);
  act(invoiceVoid, () => invoices.invoicesVoid(ctx, invoiceVoid.args[0] ?? "", invoiceVoid.opts<invoices.InvoiceOptions>()));
  const ledgerGroup = group(program, "ledger", ctx);
  const ledgerCommand = (name: CommandName) =>
    leaf(ledgerGroup, name, ctx)
      .option("--merchant <id>", "the merchant's id (required)")
      .option("--mode <mode>", "test (the default) or live")
      .option("--from <when>", "start of the period, inclusive: a day (2026-12-01) or an ISO 8601 date-time")
      .option("--to <when>", "end of the period, exclusive")
      .option("--coin <coin>", "only this coin")
      .option("--network <network>", "only this network")
      .option("--kind <kind>", "only receipts, refunds, consolidations or flushes");
  const ledgerListCommand = ledgerCommand("ledgerList")
    .option("--limit <n>", "at most this many, 1 to 100 (default: 100)")
    .option("--json", "print one JSON object");
  act(ledgerListCommand, () => ledger.ledgerList(ctx, ledgerListCommand.opts<ledger.LedgerOptions>()));
  const ledgerTotalsCommand = ledgerCommand("ledgerTotals").option("--json", "print one JSON object");
  act(ledgerTotalsCommand, () => ledger.ledgerTotals(ctx, ledgerTotalsCommand.opts<ledger.LedgerOptions>()));
  const ledgerExportCommand = ledgerCommand("ledgerExport").option("--out <file>", "write the CSV there (default: standard output)");
  act(ledgerExportCommand, () => ledger.ledgerExport(ctx, ledgerExportCommand.opts<ledger.LedgerOptions>()));

  const listenCommand = leaf(program, "listen", ctx)
    .option("--forward-to <url>", "the local URL that receives each event (required), e.g. http://localhost:4000/webhooks")
    .option("--api-url <url>", "the paygate to follow (default: PAYGATE_API_URL, else http://127.0.0.1:3000)")
    .option("--api-key <key>", "a secret key, sec_test_… or sec_live_… (default: PAYGATE_SECRET_KEY)")
    .option("--events <types>", "only these event types, comma-separated (e.g. payment.received,payment.reversed)");
  act(listenCommand, () => listen(ctx, listenCommand.opts<ListenOptions>()));

  const keys = group(program, "keys", ctx);
  const keysList = leaf(keys, "keysList", ctx).option("--merchant <id>", "the merchant's id (required)").option("--json", "print one JSON object");
  act(keysList, () => commands.keysList(ctx, keysList.opts<commands.MerchantOption>()));

  const keysRoll = leaf(keys, "keysRoll", ctx)
    .option("--merchant <id>", "the merchant's id (required)")
    .option("--mode <mode>", "test or live (required)")
    .option("--kind <kind>", "public or secret (required)")
    .option("--old-expires <when>", "now, 1h or 24h: how long the replaced key keeps working (required)")
    .option("--json", "print one JSON object");
  act(keysRoll, () => commands.keysRoll(ctx, keysRoll.opts<commands.KeysRollOptions>()));

  const holdings = leaf(program, "holdings", ctx)
    .option("--merchant <id>", "the merchant's id (required)")
    .option("--mode <mode>", "test (the default) or live")
    .option("--network <network>", "only this network's addresses")
    .option("--limit <n>", "the newest N addresses, 1 to 1000 (default: 200)")
    .option("--csv", "print the list as CSV")
    .option("--json", "print one JSON object");
  act(holdings, () => commands.holdings(ctx, holdings.opts<commands.HoldingsOptions>()));

  return program;
}

/** Runs a command's work; a UsageError it throws is printed with that command's usage. */
function act(command: Command, work: () => Promise<void>): void {
  command.action(async () => {
    try {
      await work();
    } catch (error) {
      if (error instanceof UsageError && !(error instanceof CommandUsageError)) throw new CommandUsageError(error.message, command);
      throw error;
    }
  });
}

/** Output, exit and help settings every command gets (commander copies few of them to subcommands). */
function setUp(command: Command, ctx: CliContext): void {
  command
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
      outputError: () => {}, // report() prints the message, with the usage
      getOutHelpWidth: () => ctx.stdout.columns ?? 80,
      getErrHelpWidth: () => ctx.stderr.columns ?? 80,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .exitOverride((error) => {
      throw fromCommander(error, command);
    })
    .helpOption("-h, --help", "show this help");
}

/** Commander's refusals, in paygate's words ("Expected 3 argument(s), got 2."). */
function fromCommander(error: CommanderError, command: Command): Error {
  switch (error.code) {
    case "commander.helpDisplayed":
    case "commander.help":
      return new HelpShown(error.exitCode);
    case "commander.missingArgument":
    case "commander.excessArguments": {
      const expected = command.registeredArguments.length;
      const got = command.args.length;
      if (expected === 0) return new CommandUsageError(`Unexpected argument '${command.args[0] ?? ""}'.`, command);
      return new CommandUsageError(`Expected ${expected} argument(s), got ${got}.`, command);
    }
    default: {
      // "error: unknown option '--colour'" (and maybe "\n(Did you mean --color?)") as a sentence.
      const text = error.message.replace(/^error: /, "").replace(/^([^\n]*[^.?\n])(?=\n|$)/, "$1.");
      return new CommandUsageError(text.charAt(0).toUpperCase() + text.slice(1), command);
    }
  }
}

/** `paygate merchant …`: only subcommands; a missing or unknown one is a usage error of the group. */
function group(program: Command, name: string, ctx: CliContext): Command {
  const command = program.command(name).description(GROUPS[name] ?? "");
  setUp(command, ctx);
  command.configureHelp({ formatHelp: () => groupUsage(name) });
  command
    .argument("[command...]")
    .helpCommand(false)
    .action((words: string[]) => {
      const known = command.commands.map((c) => c.name()).join(", ");
      throw new CommandUsageError(
        words[0] === undefined ? `Missing command: paygate ${name} takes ${known}.` : `Unknown command '${name} ${words[0]}'.`,
        command,
      );
    });
  return command;
}

/** A command that does something: its usage and description come from COMMANDS (src/cli/usage.ts). */
function leaf(parent: Command, spec: CommandName, ctx: CliContext): Command {
  const { path, synopsis, about } = COMMANDS[spec];
  const name = path.split(" ").at(-1) ?? path;
  const command = parent.command(name).description(about.replace(/\n/g, " ")); // wrapped to the terminal
  setUp(command, ctx);
  command.configureHelp({}); // commander's own layout, not the group's (copied from the parent)
  // Continuation lines of the synopsis line up after "Usage: paygate merchant create ".
  const indent = " ".repeat(`Usage: paygate ${path} `.length);
  command.usage(synopsis.map((line, i) => (i === 0 ? line : indent + line)).join("\n"));
  return command;
}

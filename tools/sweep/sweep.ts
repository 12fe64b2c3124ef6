// paygate's sweep tool (issue 40; docs/settlement.md, Sweeping fresh addresses). It runs on the
// merchant's machine, never on paygate's server: it reads a sweep plan (from paygate's REST API with the
// merchant's secret key, or a file the CLI wrote), the merchant's account key from a file or stdin, and
// checks every address of the plan is derived from that key. A dry run (the default) prints what it
// would do; --execute tops each address up from the fee wallet, sends its funds to the plan's
// destination through the merchant's RPC URL, and reports. Run with:
//   npx tsx tools/sweep/sweep.ts --plan plan.json --key - < account-key.txt
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type SweepAddressView, type SweepPlanView, sameAddressOn } from "../../src/core/settlement/sweep-view.ts";
import { type AddressOutcome, chainOf, EvmRpc, outcomeOf, RpcError, sweepAddress } from "./evm.ts";
import { accountKey, evmChild, feeWalletKey, KeyError, readSecret, sameAccount, tronChild } from "./keys.ts";
import { sweepTronAddress, TronHttp } from "./tron.ts";

const USAGE = `Usage: npx tsx tools/sweep/sweep.ts (--plan FILE | --api URL --network NETWORK [--destination ADDRESS] [--coin COIN])
                                   --key FILE|- [--path m/44'/60'/0'] [--coin COIN] [--json]
                                   [--execute --rpc URL --fee-key FILE|- [--report]]
  --plan FILE       a plan written by \`paygate settlement sweep-plan --json\` (or the REST response)
  --api URL         paygate's base URL: the plan is fetched with the secret key of --api-key-file or PAYGATE_SECRET_KEY
  --key FILE|-      the account's extended private key (xprv/tprv), or its mnemonic with --path
                    (m/44'/60'/0' on EVM networks, m/44'/195'/0' on TRON); - reads stdin
  --coin COIN       only this coin's addresses (each coin's wallet is its own account key)
  --execute         send (the default is a dry run that sends nothing)
  --rpc URL         the network's JSON-RPC URL (the merchant's own node or provider); on TRON, its node's
                    HTTP API (java-tron's /wallet/…, e.g. http://127.0.0.1:8090)
  --fee-key FILE|-  the fee wallet's private key (64 hex digits), holding the network's coin
  --report          with --execute: print the body to POST to /v1/settlements/sweeps (or give to
                    paygate settlement sweep-record --file), so paygate records the sweeps in the ledger`;

/** What differs between the two kinds of network the tool sweeps on: the address form (sameAddressOn compares them) and the fee coin's units. */
const FAMILIES = {
  evm: { child: evmChild, unit: "wei", work: "gas" },
  tron: { child: tronChild, unit: "sun", work: "energy" },
} as const;
const familyOf = (plan: SweepPlanView) => (plan.network === "tron" ? "tron" : "evm");

class UsageError extends Error {
  override readonly name = "UsageError";
}

interface Options {
  plan?: string;
  api?: string;
  "api-key-file"?: string;
  network?: string;
  destination?: string;
  coin?: string;
  key?: string;
  path?: string;
  execute?: boolean;
  "dry-run"?: boolean;
  rpc?: string;
  "fee-key"?: string;
  json?: boolean;
  report?: boolean;
  help?: boolean;
}

function options(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      plan: { type: "string" },
      api: { type: "string" },
      "api-key-file": { type: "string" },
      network: { type: "string" },
      destination: { type: "string" },
      coin: { type: "string" },
      key: { type: "string" },
      path: { type: "string" },
      execute: { type: "boolean" },
      "dry-run": { type: "boolean" },
      rpc: { type: "string" },
      "fee-key": { type: "string" },
      json: { type: "boolean" },
      report: { type: "boolean" },
      help: { type: "boolean" },
    },
    strict: true,
  });
  return values;
}

async function loadPlan(o: Options): Promise<SweepPlanView> {
  let body: unknown;
  if (o.plan !== undefined) {
    try {
      body = JSON.parse(readFileSync(o.plan, "utf8"));
    } catch (error) {
      throw new UsageError(`--plan ${o.plan} is not a readable JSON file (${error instanceof Error ? error.message : String(error)})`);
    }
  } else if (o.api !== undefined) {
    if (o.network === undefined) throw new UsageError("--api needs --network");
    const apiKey = o["api-key-file"] !== undefined ? readSecret(o["api-key-file"], "the API key") : process.env.PAYGATE_SECRET_KEY;
    if (!apiKey) throw new UsageError("--api needs the merchant's secret key: --api-key-file FILE or PAYGATE_SECRET_KEY");
    const query = new URLSearchParams({ network: o.network });
    if (o.destination !== undefined) query.set("destination", o.destination);
    if (o.coin !== undefined) query.set("coin", o.coin);
    const response = await fetch(`${o.api.replace(/\/$/, "")}/v1/settlements/sweep-plan?${query}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    body = await response.json().catch(() => null);
    if (!response.ok)
      throw new UsageError(`paygate refused the plan (HTTP ${response.status}): ${(body as { message?: string } | null)?.message ?? "no message"}`);
  } else throw new UsageError("give --plan FILE or --api URL");
  const plan = (body as { data?: unknown })?.data ?? body;
  if ((plan as { object?: string })?.object !== "sweep_plan") throw new UsageError("the plan is not a sweep plan (its object is not sweep_plan)");
  return plan as SweepPlanView;
}

/** The plan's addresses to sweep, each with its key: refused whole when one is not derived from the account key. */
function keyedAddresses(plan: SweepPlanView, o: Options) {
  if (o.key === undefined) throw new UsageError("--key FILE|- is required: the account's private key (never on the command line)");
  if (o.key === "-" && o["fee-key"] === "-") throw new UsageError("only one of --key and --fee-key can read stdin");
  const account = accountKey(readSecret(o.key, "the account key"), o.path);
  const coin = o.coin?.toUpperCase();
  const wanted = plan.addresses.filter((a) => coin === undefined || a.coin === coin);
  const family = familyOf(plan);
  const { child } = FAMILIES[family];
  const wrong = wanted.filter(
    (a) => !sameAccount(account, a.account_key) || !sameAddressOn(family, child(account, a.derivation_index).address, a.address),
  );
  if (wrong.length > 0) {
    const coins = [...new Set(wrong.map((a) => a.coin))].join(", ");
    throw new KeyError(
      `${wrong.length} of the plan's ${wanted.length} addresses (${coins}) are not derived from the key you gave, e.g. ${wrong[0]?.address} at ${wrong[0]?.derivation_path}: ` +
        "give the private key of the account whose extended public key paygate has for that coin, or --coin to sweep one coin. Nothing was sent.",
    );
  }
  return wanted.map((entry) => ({ entry, key: child(account, entry.derivation_index) }));
}

function dryRunText(plan: SweepPlanView, entries: readonly SweepAddressView[]): string {
  const lines = [`Dry run: nothing is sent. ${entries.length} addresses on ${plan.network_name} to ${plan.destination}:`];
  for (const a of entries) {
    if (a.skipped) {
      lines.push(`  ${a.address}  skip: ${a.skipped}`);
      continue;
    }
    const topUp = a.fee.top_up === "0" ? "no top-up" : `top-up ${a.fee.top_up} ${plan.fee_coin} from the fee wallet`;
    lines.push(`  ${a.address}  ${topUp}, then send ${a.to_send} ${a.coin} (fee about ${a.fee.transfer} ${plan.fee_coin})`);
  }
  const t = plan.totals;
  for (const c of t.coins) lines.push(`Total ${c.coin}: ${c.to_send} to send`);
  lines.push(
    `Fees: about ${t.fees.total} ${plan.fee_coin}, top-ups ${t.fees.top_up} ${plan.fee_coin}${t.fee_share_percent ? ` (${t.fee_share_percent} % of the value)` : ""}`,
  );
  lines.push("Run again with --execute --rpc URL --fee-key FILE|- to sweep.");
  return lines.join("\n");
}

function reportText(plan: SweepPlanView, outcomes: readonly AddressOutcome[]): string {
  const lines = [`Swept on ${plan.network_name} to ${plan.destination}:`];
  const { unit, work } = FAMILIES[familyOf(plan)];
  let fees = 0n;
  let topUps = 0n;
  const moved = new Map<string, bigint>();
  for (const o of outcomes) {
    if (o.state !== "swept") {
      lines.push(`  ${o.address}  ${o.state === "already_empty" ? "already empty" : "skipped"}: ${o.reason}`);
      continue;
    }
    for (const sent of [o.top_up, o.transfer, o.coin_left_over]) if (sent !== null) fees += BigInt(sent.fee_units);
    if (o.top_up) topUps += BigInt(o.top_up.amount_units);
    if (o.transfer) moved.set(o.coin, (moved.get(o.coin) ?? 0n) + BigInt(o.transfer.amount_units));
    const parts = [
      o.top_up && `top-up ${o.top_up.tx_hash} (${o.top_up.amount_units} ${unit}, ${work} ${o.top_up.gas_used})`,
      o.transfer && `transfer ${o.transfer.tx_hash} (${o.transfer.amount_units} base units of ${o.coin}, ${work} ${o.transfer.gas_used})`,
      o.coin_left_over && `coin left over ${o.coin_left_over.tx_hash} (${o.coin_left_over.amount_units} ${unit})`,
    ].filter(Boolean);
    lines.push(`  ${o.address}  ${parts.join("; ")}`);
  }
  for (const [coin, units] of moved) lines.push(`Moved ${units} base units of ${coin}`);
  lines.push(`Top-ups ${topUps} ${unit}; fees paid ${fees} ${unit} (${plan.fee_coin})`);
  return lines.join("\n");
}

/**
 * What paygate records (POST /v1/settlements/sweeps, docs/settlement.md, Recording sweeps): each
 * transaction sent from a payment address, the transfer with the top-up that paid its gas.
 */
export function recordBody(network: string, outcomes: readonly AddressOutcome[]) {
  const sweeps = outcomes.flatMap((o) => [
    ...(o.transfer ? [{ tx_hash: o.transfer.tx_hash, top_up_tx_hash: o.top_up?.tx_hash ?? null }] : []),
    ...(o.coin_left_over ? [{ tx_hash: o.coin_left_over.tx_hash, top_up_tx_hash: null }] : []),
  ]);
  return { network, sweeps };
}

/** Sweeps one address on an EVM network: the chain read once (its id and gas price), then each address. */
async function evmSweep(rpc: string, feeWallet: { address: string; privateKey: Uint8Array }, destination: string) {
  const chain = await chainOf(new EvmRpc(rpc));
  return (entry: SweepAddressView, key: { address: string; privateKey: Uint8Array }) => sweepAddress(chain, entry, key, feeWallet, destination);
}

export async function main(argv: string[], out: (text: string) => void): Promise<number> {
  const o = options(argv);
  if (o.help) {
    out(USAGE);
    return 0;
  }
  if (o.execute && o["dry-run"]) throw new UsageError("--execute and --dry-run exclude each other");
  if (o.report && !o.execute) throw new UsageError("--report needs --execute: a dry run sends nothing to record");
  const plan = await loadPlan(o);
  const keyed = keyedAddresses(plan, o);
  if (!o.execute) {
    out(
      o.json
        ? JSON.stringify({ dry_run: true, plan: { ...plan, addresses: keyed.map((k) => k.entry) } }, null, 2)
        : dryRunText(
            plan,
            keyed.map((k) => k.entry),
          ),
    );
    return 0;
  }
  const tron = familyOf(plan) === "tron";
  const rpc = o.rpc;
  if (rpc === undefined) throw new UsageError(`--execute needs --rpc URL, ${tron ? "the TRON node's HTTP API" : "the network's JSON-RPC"}`);
  if (o["fee-key"] === undefined) throw new UsageError("--execute needs --fee-key FILE|-, the fee wallet's private key");
  const feeWallet = feeWalletKey(readSecret(o["fee-key"], "the fee wallet key"), familyOf(plan));
  const sweep = tron
    ? (entry: SweepAddressView, key: { address: string; privateKey: Uint8Array }) =>
        sweepTronAddress(new TronHttp(rpc), entry, key, feeWallet, plan.destination)
    : await evmSweep(rpc, feeWallet, plan.destination);
  const outcomes: AddressOutcome[] = [];
  for (const { entry, key } of keyed) {
    if (entry.skipped) {
      outcomes.push({ ...outcomeOf(entry), state: "skipped", reason: entry.skipped });
      continue;
    }
    outcomes.push(await sweep(entry, key));
  }
  if (o.report) {
    out(JSON.stringify(recordBody(plan.network, outcomes), null, 2));
    return 0;
  }
  out(
    o.json
      ? JSON.stringify({ dry_run: false, network: plan.network, destination: plan.destination, addresses: outcomes }, null, 2)
      : reportText(plan, outcomes),
  );
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2), (text) => process.stdout.write(`${text}\n`)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      const known =
        error instanceof UsageError ||
        error instanceof KeyError ||
        error instanceof RpcError ||
        (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
      process.stderr.write(
        `paygate-sweep: ${error instanceof Error ? error.message : String(error)}\n${error instanceof UsageError ? `\n${USAGE}\n` : ""}`,
      );
      process.exit(known ? 2 : 1);
    },
  );
}

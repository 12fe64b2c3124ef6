// `npm run bench:settle`: what making one received payment spendable by the merchant costs, in gas
// and in USD at the test rates (src/core/test-rates.ts), on a real EVM node (anvil, one per network,
// with the network's own chain id), every transaction signed here and sent raw (issue 40, goal 6):
//
//   today      each payment on a fresh address of the merchant's key. A token: the fee wallet tops the
//              address up with the coin its transfer needs (21,000 gas), then the address sends the
//              token to the merchant. The coin: the address sends it on itself (its own gas).
//   forwarders each payment on its forwarder's address; one flush transaction, signed by the fee
//              payer, creates n forwarders and moves what they hold (n = 1, 10, 100); per payment is
//              the flush's gas / n. "again" flushes 100 forwarders that exist already.
//
// Rows per EVM network (src/core/networks.ts): its token (Ethereum's USDT, whose transfer returns
// nothing; elsewhere an ERC-20 or BEP-20 whose transfer returns true, as USDC and the other USDTs) and
// its fee coin where paygate takes it as a payment (ETH on ethereum, BNB on bsc). The gas is the chain's
// (receipts' gasUsed); USD = gas × gas price × the fee coin's rate, at the gas prices below
// (BENCH_<NETWORK>_GWEI) and the test rates (POL, which paygate does not take, at BENCH_POL_USD). Beside
// the gas, the signed transactions' bytes per payment: a rollup (Base, Arbitrum) also charges an L1 data
// fee on them, which anvil does not, so their USD is the L2 gas alone. The merchant's settlement address
// already holds the token, as it does after its first payment. Prints one table and whether forwarders
// at 100 per flush meet issue 40's goal (at most 60 % of today's gas per token payment), and writes the
// rows to bench/results/settle.json (docs/benchmarks.md, Settling payments).
//
// TRON (USDT, TRC-20), which no node here runs as TRON: the documented resource costs (energy burned
// at 100 sun since proposal 104, bandwidth at 1,000 sun a byte, 1 TRX to activate a new account) for
// today's way, the transfer's estimate of a TRON JSON-RPC (anvil on Nile's chain id with the 6-decimal
// test token at Nile's USDT address: EVM gas standing in for energy), and the merchant's own addresses
// with unique amounts, where nothing moves. USD at BENCH_TRX_USD (TRX has no test rate in paygate).
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { Decimal } from "../src/core/money/amounts.ts";
import type { CryptoSlug } from "../src/core/money/currencies.ts";
import { coinNetwork, EVM_CHAINS, EVM_NETWORK_SLUGS, type EvmNetworkSlug } from "../src/core/networks.ts";
import { DEFAULT_TEST_RATES } from "../src/core/test-rates.ts";
import { type Deposit, encodeFlush, forwarderAddress, paymentSalt } from "../src/rails/evm/forwarders.ts";
import { toChecksumAddress } from "../src/rails/wallets/addresses.ts";
import { startNileWithUsdt, TOKEN_HEX } from "../test/e2e/tron.ts";
import { type Anvil, startAnvil } from "../test/support/anvil.ts";
import {
  abiCall,
  coinBalance,
  deployFactory,
  deployTest,
  fundedSigner,
  mint,
  type SentReceipt,
  type Signer,
  signerOf,
} from "../test/support/forwarders.ts";

/** Gas prices of the runs (gwei), each network's own order of magnitude; BENCH_<NETWORK>_GWEI to change. */
const GWEI: Record<EvmNetworkSlug, string> = { ethereum: "1", bsc: "0.1", base: "0.01", polygon: "30", arbitrum: "0.01" };
/** Fee coins paygate has no test rate for (it takes no payment in them). */
const OTHER_RATES: Record<string, string> = { POL: process.env.BENCH_POL_USD ?? "0.25" };

const NETWORKS = EVM_NETWORK_SLUGS.map((network) => {
  const chain = EVM_CHAINS[network];
  const feeCoin = chain.feeCoin;
  return {
    network,
    chainId: chain.live.chainId ?? 1,
    feeCoin,
    /** Measured as a payment only where paygate takes the fee coin as one. */
    coinPaid: coinNetwork(feeCoin as CryptoSlug, network) !== undefined,
    token: network === "ethereum" ? "UsdtLike" : "Bep20Like",
    tokenName: network === "ethereum" ? "USDT-like (no return value)" : network === "bsc" ? "BEP-20 (18 decimals)" : "ERC-20 (returns true)",
    unit: network === "bsc" ? 10n ** 18n : 10n ** 6n,
    gwei: process.env[`BENCH_${network.toUpperCase()}_GWEI`] ?? GWEI[network],
    usdRate: DEFAULT_TEST_RATES[feeCoin as CryptoSlug]?.USD ?? OTHER_RATES[feeCoin] ?? "0",
  };
});
const BATCHES = [1, 10, 100];
/** Payments measured the way of today, averaged. */
const TODAY_SAMPLES = 10;
const GOAL = 0.6;

interface Row {
  network: string;
  paid: string;
  way: string;
  perFlush: number | null;
  gasPerPayment: number;
  /** The signed transactions' bytes per payment (a rollup's L1 data fee is charged on them). */
  bytesPerPayment: number;
  usdPerPayment: string;
  ofToday: string;
  ofTodayBytes: string;
}

/** What transactions cost: their gas and their signed bytes. */
interface Spent {
  gas: number;
  bytes: number;
}

const spentBy = (...receipts: SentReceipt[]): Spent => {
  if (receipts.some((r) => r.status !== "0x1")) throw new Error("a measured transaction failed");
  return { gas: receipts.reduce((sum, r) => sum + Number(BigInt(r.gasUsed)), 0), bytes: receipts.reduce((sum, r) => sum + r.bytes, 0) };
};
const per = (spent: Spent, n: number): Spent => ({ gas: spent.gas / n, bytes: spent.bytes / n });

async function main(): Promise<void> {
  const rows: Row[] = [];
  for (const net of NETWORKS) {
    const anvil = await startAnvil({ chainId: net.chainId });
    try {
      const factory = await deployFactory(anvil);
      const feePayer = await fundedSigner(anvil, 1000n * 10n ** 18n);
      const token = await deployTest(anvil, net.token);
      const merchant = toChecksumAddress(randomBytes(20).toString("hex"));
      await mint(anvil, token, merchant, net.unit); // the merchant holds the token already
      await anvil.sendTransaction({ to: merchant, value: 10n ** 18n });
      const usd = (gas: number) => new Decimal(gas).mul(net.gwei).div(1e9).mul(net.usdRate).toFixed(4);
      const amount = 20n * net.unit;
      const add = (paid: string, way: string, perFlush: number | null, spent: Spent, today: Spent) =>
        rows.push({
          network: net.network,
          paid,
          way,
          perFlush,
          gasPerPayment: Math.round(spent.gas),
          bytesPerPayment: Math.round(spent.bytes),
          usdPerPayment: usd(spent.gas),
          ofToday: `${((spent.gas / today.gas) * 100).toFixed(1)} %`,
          ofTodayBytes: `${((spent.bytes / today.bytes) * 100).toFixed(1)} %`,
        });

      const todayToken = await todayTokenCost(anvil, feePayer, token, merchant, amount);
      add(net.tokenName, "fresh address + top-up + transfer", null, todayToken, todayToken);
      for (const n of BATCHES)
        add(net.tokenName, "forwarders", n, per(await flushCost(anvil, feePayer, factory, token, merchant, n, amount, 1), n), todayToken);
      add(net.tokenName, "forwarders, again", 100, per(await flushCost(anvil, feePayer, factory, token, merchant, 100, amount, 2), 100), todayToken);
      if (net.coinPaid) {
        const todayCoin = await todayCoinCost(anvil, merchant);
        add(net.feeCoin, "fresh address sends it on", null, todayCoin, todayCoin);
        for (const n of BATCHES)
          add(net.feeCoin, "forwarders", n, per(await flushCost(anvil, feePayer, factory, null, merchant, n, 10n ** 17n, 1), n), todayCoin);
      }
    } finally {
      await anvil.stop();
    }
  }

  console.log("| network | paid in | way | per flush | gas per payment | USD per payment | of today's gas | bytes per payment | of today's bytes |");
  console.log("|---|---|---|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.network} | ${r.paid} | ${r.way} | ${r.perFlush ?? ""} | ${r.gasPerPayment.toLocaleString("en-US")} | ${r.usdPerPayment} | ${r.ofToday} | ${r.bytesPerPayment} | ${r.ofTodayBytes} |`,
    );
  }
  const rates = [...new Map(NETWORKS.map((n) => [n.feeCoin, `${n.feeCoin} ${n.usdRate} USD`])).values()];
  console.log(`gas prices: ${NETWORKS.map((n) => `${n.network} ${n.gwei} gwei`).join(", ")}; rates: ${rates.join(", ")}`);
  mkdirSync(new URL("results/", import.meta.url), { recursive: true });
  writeFileSync(new URL("results/settle.json", import.meta.url), `${JSON.stringify({ at: new Date().toISOString(), rows }, null, 2)}\n`);

  const misses = rows.filter(
    (r) => r.way === "forwarders" && r.perFlush === 100 && !NETWORKS.some((n) => n.feeCoin === r.paid) && Number.parseFloat(r.ofToday) > GOAL * 100,
  );
  for (const r of misses)
    console.log(`goal missed: ${r.network} ${r.paid} at 100 per flush uses ${r.ofToday} of today's gas (goal: at most ${GOAL * 100} %)`);
  if (misses.length === 0) console.log(`goal met: forwarders at 100 per flush use at most ${GOAL * 100} % of today's gas per token payment`);

  const tron = await tronRows();
  console.log("\n| network | paid in | way | energy | bandwidth | activation | TRX per payment | USD per payment |");
  console.log("|---|---|---|---:|---:|---:|---:|---:|");
  for (const r of tron)
    console.log(
      `| tron | USDT (TRC-20) | ${r.way} | ${r.energy.toLocaleString("en-US")} | ${r.bandwidth} | ${r.activationTrx} TRX | ${r.trx} | ${r.usd} |`,
    );
  console.log(`TRX at ${TRX_USD} USD (BENCH_TRX_USD); energy at ${ENERGY_SUN} sun, bandwidth at ${BANDWIDTH_SUN} sun a byte`);
  writeFileSync(new URL("results/settle.json", import.meta.url), `${JSON.stringify({ at: new Date().toISOString(), rows, tron }, null, 2)}\n`);
}

/** TRON's resource prices: energy burned since proposal 104, bandwidth burned when the free daily 600 are spent. */
const ENERGY_SUN = 100;
const BANDWIDTH_SUN = 1_000;
const TRX_USD = process.env.BENCH_TRX_USD ?? "0.30";
/** A TRC-20 transfer into an address that already holds the token (the merchant's, after its first payment). */
const DOCUMENTED_TRANSFER_ENERGY = 64_285;
const TRANSFER_BANDWIDTH = 345;
/** The fee wallet's TRX top-up of the payment address (a TransferContract). */
const TOP_UP_BANDWIDTH = 268;

interface TronRow {
  way: string;
  energy: number;
  bandwidth: number;
  activationTrx: string;
  trx: string;
  usd: string;
}

/** What one USDT payment on TRON costs to make spendable, each way (see the header). */
async function tronRows(): Promise<TronRow[]> {
  const nile = await startNileWithUsdt();
  let estimated: number;
  try {
    // A fresh address holding a payment, asked how much its transfer to a holder costs.
    const payment = toChecksumAddress(randomBytes(20).toString("hex"));
    const merchant = toChecksumAddress(randomBytes(20).toString("hex"));
    for (const to of [payment, merchant]) await nile.sendTransaction({ to: TOKEN_HEX, data: abiCall("transfer(address,uint256)", to, 20_000_000n) });
    await nile.sendTransaction({ to: payment, value: 10n ** 18n });
    const transfer = abiCall("transfer(address,uint256)", merchant, 20_000_000n);
    estimated = Number(BigInt(String(await nile.send("eth_estimateGas", [{ from: payment, to: TOKEN_HEX, data: transfer }]))));
  } finally {
    await nile.stop();
  }
  const row = (way: string, energy: number, bandwidth: number, activation: Decimal): TronRow => {
    const trx = new Decimal(energy).mul(ENERGY_SUN).plus(new Decimal(bandwidth).mul(BANDWIDTH_SUN)).div(1_000_000).plus(activation);
    return { way, energy, bandwidth, activationTrx: activation.toFixed(), trx: trx.toFixed(6), usd: trx.mul(TRX_USD).toFixed(4) };
  };
  const one = new Decimal(1);
  return [
    row("fresh address + TRX top-up + transfer (documented energy)", DOCUMENTED_TRANSFER_ENERGY, TRANSFER_BANDWIDTH + TOP_UP_BANDWIDTH, one),
    row("fresh address + TRX top-up + transfer (the node's estimate)", estimated, TRANSFER_BANDWIDTH + TOP_UP_BANDWIDTH, one),
    row("the merchant's own address, unique amount (nothing moves)", 0, 0, new Decimal(0)),
  ];
}

/** Today's way for a token, averaged: a fresh address is paid, topped up by the fee wallet, and sends the token on. */
async function todayTokenCost(anvil: Anvil, feeWallet: Signer, token: string, merchant: string, amount: bigint): Promise<Spent> {
  const spent: SentReceipt[] = [];
  for (let i = 0; i < TODAY_SAMPLES; i++) {
    const address = signerOf(anvil);
    await mint(anvil, token, address.address, amount); // the customer's payment
    const transfer = abiCall("transfer(address,uint256)", merchant, amount);
    const gas = BigInt(String(await anvil.send("eth_estimateGas", [{ from: address.address, to: token, data: transfer }])));
    spent.push(await feeWallet.send({ to: address.address, value: gas * 2_000_000_000n }));
    spent.push(await address.send({ to: token, data: transfer, gas }));
  }
  return per(spentBy(...spent), TODAY_SAMPLES);
}

/** Today's way for the coin: the paid address sends it on, paying its own gas. */
async function todayCoinCost(anvil: Anvil, merchant: string): Promise<Spent> {
  const spent: SentReceipt[] = [];
  for (let i = 0; i < TODAY_SAMPLES; i++) {
    const address = await fundedSigner(anvil, 10n ** 17n);
    const left = (await coinBalance(anvil, address.address)) - 21_000n * 2_000_000_000n;
    spent.push(await address.send({ to: merchant, value: left, gas: 21_000n }));
  }
  return per(spentBy(...spent), TODAY_SAMPLES);
}

/**
 * n payments to n new forwarders, flushed in one transaction; each later round pays and flushes the
 * same forwarders again. What the last round's flush cost.
 */
async function flushCost(
  anvil: Anvil,
  feePayer: Signer,
  factory: string,
  token: string | null,
  merchant: string,
  n: number,
  amount: bigint,
  rounds: number,
): Promise<Spent> {
  const deposits: Deposit[] = Array.from({ length: n }, () => ({ destination: merchant, salt: paymentSalt(randomBytes(16).toString("hex")) }));
  const tokens = token === null ? [] : [token];
  let last: Spent = { gas: 0, bytes: 0 };
  for (let round = 0; round < rounds; round++) {
    for (const d of deposits) {
      const at = forwarderAddress(factory, d);
      if (token === null) await anvil.sendTransaction({ to: at, value: amount });
      else await mint(anvil, token, at, amount);
    }
    last = spentBy(await feePayer.send({ to: factory, data: encodeFlush(deposits, tokens) }));
  }
  return last;
}

await main();

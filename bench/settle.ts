// `npm run bench:settle`: what making one received payment spendable by the merchant costs, in gas
// and in USD at the test rates (src/core/test-rates.ts), on a real EVM node (anvil), every
// transaction signed here and sent raw (issue 40, goal 6):
//
//   today      each payment on a fresh address of the merchant's key. A token: the fee wallet tops the
//              address up with the coin its transfer needs (21,000 gas), then the address sends the
//              token to the merchant. The coin: the address sends it on itself (its own gas).
//   forwarders each payment on its forwarder's address; one flush transaction, signed by the fee
//              payer, creates n forwarders and moves what they hold (n = 1, 10, 100); per payment is
//              the flush's gas / n. "again" flushes 100 forwarders that exist already.
//
// Rows per network: ethereum (a USDT-like token whose transfer returns nothing, and ETH) and bsc (an
// 18-decimal BEP-20 and BNB). The gas is the chain's (receipts' gasUsed); USD = gas × gas price ×
// the coin's test rate, at the gas prices below (BENCH_ETH_GWEI, BENCH_BSC_GWEI). The merchant's
// settlement address already holds the token, as it does after its first payment. Prints one table
// and whether forwarders at 100 per flush meet issue 40's goal (at most 60 % of today's gas per token
// payment), and writes the rows to bench/results/settle.json (docs/benchmarks.md, Settling payments).
//
// TRON (USDT, TRC-20), which no node here runs as TRON: the documented resource costs (energy burned
// at 100 sun since proposal 104, bandwidth at 1,000 sun a byte, 1 TRX to activate a new account) for
// today's way, the transfer's estimate of a TRON JSON-RPC (anvil on Nile's chain id with the 6-decimal
// test token at Nile's USDT address: EVM gas standing in for energy), and the merchant's own addresses
// with unique amounts, where nothing moves. USD at BENCH_TRX_USD (TRX has no test rate in paygate).
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { Decimal } from "../src/core/money/amounts.ts";
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
  type Receipt,
  type Signer,
  signerOf,
} from "../test/support/forwarders.ts";

const NETWORKS = [
  {
    network: "ethereum",
    coin: "ETH",
    token: "UsdtLike",
    tokenName: "USDT-like (no return value)",
    unit: 10n ** 6n,
    gwei: process.env.BENCH_ETH_GWEI ?? "1",
  },
  { network: "bsc", coin: "BNB", token: "Bep20Like", tokenName: "BEP-20 (18 decimals)", unit: 10n ** 18n, gwei: process.env.BENCH_BSC_GWEI ?? "0.1" },
] as const;
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
  usdPerPayment: string;
  ofToday: string;
}

const gasOf = (r: Receipt) => {
  if (r.status !== "0x1") throw new Error("a measured transaction failed");
  return Number(BigInt(r.gasUsed));
};

async function main(): Promise<void> {
  const anvil = await startAnvil({ chainId: 31337 });
  const rows: Row[] = [];
  try {
    const factory = await deployFactory(anvil);
    const feePayer = await fundedSigner(anvil, 1000n * 10n ** 18n);
    for (const net of NETWORKS) {
      const token = await deployTest(anvil, net.token);
      const merchant = toChecksumAddress(randomBytes(20).toString("hex"));
      await mint(anvil, token, merchant, net.unit); // the merchant holds the token already
      await anvil.sendTransaction({ to: merchant, value: 10n ** 18n });
      const usd = (gas: number) =>
        new Decimal(gas)
          .mul(net.gwei)
          .div(1e9)
          .mul(DEFAULT_TEST_RATES[net.coin]?.USD ?? "0")
          .toFixed(4);
      const amount = 20n * net.unit;

      const todayToken = await todayTokenGas(anvil, feePayer, token, merchant, amount);
      const todayCoin = await todayCoinGas(anvil, merchant);
      const add = (paid: string, way: string, perFlush: number | null, gas: number, today: number) =>
        rows.push({
          network: net.network,
          paid,
          way,
          perFlush,
          gasPerPayment: Math.round(gas),
          usdPerPayment: usd(gas),
          ofToday: `${((gas / today) * 100).toFixed(1)} %`,
        });
      add(net.tokenName, "fresh address + top-up + transfer", null, todayToken, todayToken);
      for (const n of BATCHES)
        add(net.tokenName, "forwarders", n, (await flushGas(anvil, feePayer, factory, token, merchant, n, amount, false)).first / n, todayToken);
      add(
        net.tokenName,
        "forwarders, again",
        100,
        (await flushGas(anvil, feePayer, factory, token, merchant, 100, amount, true)).again / 100,
        todayToken,
      );
      add(net.coin, "fresh address sends it on", null, todayCoin, todayCoin);
      for (const n of BATCHES)
        add(net.coin, "forwarders", n, (await flushGas(anvil, feePayer, factory, null, merchant, n, 10n ** 17n, false)).first / n, todayCoin);
    }
  } finally {
    await anvil.stop();
  }

  console.log("| network | paid in | way | per flush | gas per payment | USD per payment | of today's gas |");
  console.log("|---|---|---|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.network} | ${r.paid} | ${r.way} | ${r.perFlush ?? ""} | ${r.gasPerPayment.toLocaleString("en-US")} | ${r.usdPerPayment} | ${r.ofToday} |`,
    );
  }
  console.log(
    `gas prices: ${NETWORKS.map((n) => `${n.network} ${n.gwei} gwei`).join(", ")}; rates: ${NETWORKS.map((n) => `${n.coin} ${DEFAULT_TEST_RATES[n.coin]?.USD} USD`).join(", ")}`,
  );
  mkdirSync(new URL("results/", import.meta.url), { recursive: true });
  writeFileSync(new URL("results/settle.json", import.meta.url), `${JSON.stringify({ at: new Date().toISOString(), rows }, null, 2)}\n`);

  const misses = rows.filter(
    (r) => r.way === "forwarders" && r.perFlush === 100 && !NETWORKS.some((n) => n.coin === r.paid) && Number.parseFloat(r.ofToday) > GOAL * 100,
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
async function todayTokenGas(anvil: Anvil, feeWallet: Signer, token: string, merchant: string, amount: bigint): Promise<number> {
  let total = 0;
  for (let i = 0; i < TODAY_SAMPLES; i++) {
    const address = signerOf(anvil);
    await mint(anvil, token, address.address, amount); // the customer's payment
    const transfer = abiCall("transfer(address,uint256)", merchant, amount);
    const gas = BigInt(String(await anvil.send("eth_estimateGas", [{ from: address.address, to: token, data: transfer }])));
    total += gasOf(await feeWallet.send({ to: address.address, value: gas * 2_000_000_000n }));
    total += gasOf(await address.send({ to: token, data: transfer, gas }));
  }
  return total / TODAY_SAMPLES;
}

/** Today's way for the coin: the paid address sends it on, paying its own gas. */
async function todayCoinGas(anvil: Anvil, merchant: string): Promise<number> {
  let total = 0;
  for (let i = 0; i < TODAY_SAMPLES; i++) {
    const address = await fundedSigner(anvil, 10n ** 17n);
    const left = (await coinBalance(anvil, address.address)) - 21_000n * 2_000_000_000n;
    total += gasOf(await address.send({ to: merchant, value: left, gas: 21_000n }));
  }
  return total / TODAY_SAMPLES;
}

/** n payments to n new forwarders, flushed in one transaction; `again`: paid once more and flushed a second time. */
async function flushGas(
  anvil: Anvil,
  feePayer: Signer,
  factory: string,
  token: string | null,
  merchant: string,
  n: number,
  amount: bigint,
  again: boolean,
): Promise<{ first: number; again: number }> {
  const deposits: Deposit[] = Array.from({ length: n }, () => ({ destination: merchant, salt: paymentSalt(randomBytes(16).toString("hex")) }));
  const pay = async () => {
    for (const d of deposits) {
      const at = forwarderAddress(factory, d);
      if (token === null) await anvil.sendTransaction({ to: at, value: amount });
      else await mint(anvil, token, at, amount);
    }
  };
  const tokens = token === null ? [] : [token];
  await pay();
  const first = gasOf(await feePayer.send({ to: factory, data: encodeFlush(deposits, tokens) }));
  if (!again) return { first, again: 0 };
  await pay();
  return { first, again: gasOf(await feePayer.send({ to: factory, data: encodeFlush(deposits, tokens) })) };
}

await main();

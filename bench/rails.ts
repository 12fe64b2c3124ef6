// `npx tsx bench/rails.ts`: micro-benchmark of the CPU work an initiate does outside the database.
//
//   derive   HdWalletRails.deriveAddress: one BIP32 child derivation + address encoding (bech32 for
//            BTC, EIP-55 for ETH). "warm" reuses one key, whose parsed <account>/0 node the rails
//            cache; "cold" gives a fresh key string every call, so each call also parses and checks
//            the key and derives <account>/0 first. The fresh keys are made before timing starts.
//   qr       PngQrRenderer.dataUrl of a BIP21 URI (BTC) and an EIP-681 token URI (USDT), built with
//            the rails' paymentUri; the renderer's cache is off, so every call renders a PNG.
//
// Each operation: a warm-up, then N timed calls (performance.now() around each one); mean and p99.
// Environment: BENCH_ITERATIONS (derivations, default 2000), BENCH_QR_ITERATIONS (default 300).
import { performance } from "node:perf_hooks";
import { Decimal } from "../src/core/money/amounts.ts";
import { cryptoBySlug, type CryptoCurrency } from "../src/core/money/currencies.ts";
import { PngQrRenderer } from "../src/rails/qr/index.ts";
import { HdWalletRails } from "../src/rails/wallets/index.ts";

interface Result {
  operation: string;
  iterations: number;
  meanMs: number;
  p99Ms: number;
}

const DERIVE_N = positiveInt("BENCH_ITERATIONS", 2000);
const QR_N = positiveInt("BENCH_QR_ITERATIONS", 300);
const WARM_UP_FRACTION = 0.1;

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}

function currency(slug: string): CryptoCurrency {
  const found = cryptoBySlug(slug);
  if (!found) throw new Error(`unknown currency ${slug}`);
  return found;
}

/** Runs `op(i)` for a warm-up, then `n` timed times; `op` gets a call number unique across both. */
async function measure(operation: string, n: number, op: (i: number) => unknown): Promise<Result> {
  const warmUp = Math.max(1, Math.ceil(n * WARM_UP_FRACTION));
  process.stdout.write(`${operation}: ${warmUp} warm-up + ${n} timed … `);
  for (let i = 0; i < warmUp; i++) await op(i);
  const samples = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const pending = op(warmUp + i);
    // Awaiting only promises: an await on a plain value would add a microtask turn to each sample.
    if (pending instanceof Promise) await pending;
    samples[i] = performance.now() - start;
  }
  samples.sort();
  let sum = 0;
  for (const sample of samples) sum += sample;
  const result = { operation, iterations: n, meanMs: sum / n, p99Ms: samples[Math.ceil(n * 0.99) - 1] ?? Number.NaN };
  console.log(`mean ${result.meanMs.toFixed(3)} ms`);
  return result;
}

function table(results: Result[]): string {
  const header = ["operation", "n", "mean ms", "p99 ms"];
  const rows = results.map((r) => [r.operation, String(r.iterations), r.meanMs.toFixed(3), r.p99Ms.toFixed(3)]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => (row[c] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, c) => (c === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

async function main(): Promise<void> {
  const rails = new HdWalletRails();
  const results: Result[] = [];

  for (const slug of ["BTC", "ETH"]) {
    const crypto = currency(slug);
    const key = rails.createTestWallet(crypto);
    results.push(await measure(`derive ${slug} warm (cached key)`, DERIVE_N, (i) => rails.deriveAddress(crypto, false, key, i)));

    const total = DERIVE_N + Math.ceil(DERIVE_N * WARM_UP_FRACTION);
    process.stdout.write(`making ${total} fresh ${slug} test keys … `);
    const fresh = Array.from({ length: total }, () => rails.createTestWallet(crypto));
    console.log("done");
    results.push(await measure(`derive ${slug} cold (fresh key)`, DERIVE_N, (i) => rails.deriveAddress(crypto, false, fresh[i]!, i)));
  }

  const uriFor = (slug: string, amount: string) => {
    const crypto = currency(slug);
    const address = rails.deriveAddress(crypto, false, rails.createTestWallet(crypto), 0);
    return rails.paymentUri(crypto, false, address, new Decimal(amount));
  };
  const btcUri = uriFor("BTC", "0.00153847");
  const usdtUri = uriFor("USDT", "100.5");
  const qr = new PngQrRenderer({ cacheSize: 0 });
  for (const [name, uri] of [
    ["BIP21 BTC", btcUri],
    ["EIP-681 USDT", usdtUri],
  ] as const) {
    console.log(`${name} URI (${uri.length} chars): ${uri}`);
    results.push(await measure(`qr ${name}`, QR_N, () => qr.dataUrl(uri)));
  }

  console.log(`\nnode ${process.version}, ${process.platform}/${process.arch}\n${table(results)}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);

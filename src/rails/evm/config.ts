// Deposit forwarders' configuration (issue 40; docs/settlement.md): each EVM network's factory and
// fee payer key per mode, the fee payer's "too low" threshold, and the flush job's thresholds.
import { z } from "zod";
import type { FORWARDER_NETWORKS } from "../../core/settlement/forwarders.ts";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const KEY = /^(0x)?[0-9a-fA-F]{64}$/;

const factory = (what: string) =>
  z
    .string()
    .trim()
    .regex(ADDRESS, "must be an EVM address: 0x and 40 hex digits")
    .optional()
    .describe(
      `The deposit forwarder factory on ${what}: paygate's ForwarderFactory, deployed once from src/rails/evm/contracts/Forwarders.json (its code is checked before a merchant may choose forwarders). Default: none (no forwarders there).`,
    );
const feePayerKey = (what: string) =>
  z
    .string()
    .trim()
    .regex(KEY, "must be a private key: 64 hex digits, with or without 0x")
    .optional()
    .describe(
      `The fee payer's private key on ${what}: it signs the factory's flushes and pays their gas, so it should hold only the network's coin (the forwarders can send a customer's money only to the merchant). A secret: never logged. Default: none (no flushes there).`,
    );

export const ForwarderEnvSchema = z.object({
  PAYGATE_ETH_FORWARDER_FACTORY: factory("Ethereum (live)"),
  PAYGATE_ETH_TEST_FORWARDER_FACTORY: factory("Ethereum's test chain (Sepolia, or the local chain of PAYGATE_ETH_TEST_CHAIN_ID)"),
  PAYGATE_BSC_FORWARDER_FACTORY: factory("BNB Smart Chain (live)"),
  PAYGATE_BSC_TEST_FORWARDER_FACTORY: factory("BNB Smart Chain's test chain"),
  PAYGATE_ETH_FEE_PAYER_KEY: feePayerKey("Ethereum (live)"),
  PAYGATE_ETH_TEST_FEE_PAYER_KEY: feePayerKey("Ethereum's test chain"),
  PAYGATE_BSC_FEE_PAYER_KEY: feePayerKey("BNB Smart Chain (live)"),
  PAYGATE_BSC_TEST_FEE_PAYER_KEY: feePayerKey("BNB Smart Chain's test chain"),
  PAYGATE_FEE_PAYER_LOW_BALANCE: z
    .string()
    .trim()
    .regex(/^\d{1,12}(\.\d{1,18})?$/, "must be a decimal amount of the network's coin, such as 0.05")
    .default("0.05")
    .describe(
      'Below this balance (in the network\'s coin: ETH, BNB) a fee payer is "too low": `paygate_fee_payer_low` is 1 in /metrics and the flush job says so in the log. Default: `0.05`.',
    ),
  PAYGATE_FLUSH_MIN_PAYMENTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .describe("The flush job flushes a merchant's forwarders on a network once this many settled payments wait… Default: `20`."),
  PAYGATE_FLUSH_MAX_AGE_HOURS: z.coerce
    .number()
    .min(0)
    .max(8760)
    .default(24)
    .describe("…or once the oldest has waited this many hours since it became final. Default: `24`."),
  PAYGATE_FLUSH_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(60_000)
    .describe("How often the flush job runs (sending flushes read back, thresholds checked, fee payers' balances). Default: `60000` ms."),
});
export type ForwarderEnv = z.infer<typeof ForwarderEnvSchema>;

/** The networks that take forwarders (the core's list): each needs its factory and fee payer variables above. */
export type EvmNetworkSlug = (typeof FORWARDER_NETWORKS)[number];
interface PerMode<T> {
  live?: T | undefined;
  test?: T | undefined;
}

export interface ForwarderConfig {
  factories: Record<EvmNetworkSlug, PerMode<string>>;
  /** Hex private keys (no 0x). */
  feePayerKeys: Record<EvmNetworkSlug, PerMode<string>>;
  /** In the coin, exact. */
  lowBalance: string;
  flush: { minPayments: number; maxAgeMs: number; intervalMs: number };
}

/** The variable of each setting, for messages that tell the operator what to set. */
export const FORWARDER_VARIABLES: Record<EvmNetworkSlug, { factory: PerMode<string>; feePayer: PerMode<string> }> = {
  ethereum: {
    factory: { live: "PAYGATE_ETH_FORWARDER_FACTORY", test: "PAYGATE_ETH_TEST_FORWARDER_FACTORY" },
    feePayer: { live: "PAYGATE_ETH_FEE_PAYER_KEY", test: "PAYGATE_ETH_TEST_FEE_PAYER_KEY" },
  },
  bsc: {
    factory: { live: "PAYGATE_BSC_FORWARDER_FACTORY", test: "PAYGATE_BSC_TEST_FORWARDER_FACTORY" },
    feePayer: { live: "PAYGATE_BSC_FEE_PAYER_KEY", test: "PAYGATE_BSC_TEST_FEE_PAYER_KEY" },
  },
};

const key = (value: string | undefined) => value?.replace(/^0x/, "").toLowerCase();

export function forwarderConfig(e: ForwarderEnv): ForwarderConfig {
  return {
    factories: {
      ethereum: { live: e.PAYGATE_ETH_FORWARDER_FACTORY, test: e.PAYGATE_ETH_TEST_FORWARDER_FACTORY },
      bsc: { live: e.PAYGATE_BSC_FORWARDER_FACTORY, test: e.PAYGATE_BSC_TEST_FORWARDER_FACTORY },
    },
    feePayerKeys: {
      ethereum: { live: key(e.PAYGATE_ETH_FEE_PAYER_KEY), test: key(e.PAYGATE_ETH_TEST_FEE_PAYER_KEY) },
      bsc: { live: key(e.PAYGATE_BSC_FEE_PAYER_KEY), test: key(e.PAYGATE_BSC_TEST_FEE_PAYER_KEY) },
    },
    lowBalance: e.PAYGATE_FEE_PAYER_LOW_BALANCE,
    flush: {
      minPayments: e.PAYGATE_FLUSH_MIN_PAYMENTS,
      maxAgeMs: e.PAYGATE_FLUSH_MAX_AGE_HOURS * 3_600_000,
      intervalMs: e.PAYGATE_FLUSH_INTERVAL_MS,
    },
  };
}

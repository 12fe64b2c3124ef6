// Deposit forwarders' configuration (issue 40; docs/settlement.md): each EVM network's factory and
// fee payer key per mode, the fee payer's "too low" threshold, and the flush job's thresholds.
import { z } from "zod";
import { EVM_CHAINS, EVM_NETWORK_SLUGS, type EvmNetworkSlug } from "../../core/networks.ts";

export type { EvmNetworkSlug };

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

type PerModeVariables = { live: string; test: string };

/** Each EVM network's variables, named after its node variables' stem (PAYGATE_ETH_…, PAYGATE_BASE_…): a new EVM row takes forwarders with no new code. */
export const FORWARDER_VARIABLES: Record<EvmNetworkSlug, { factory: PerModeVariables; feePayer: PerModeVariables }> = Object.fromEntries(
  EVM_NETWORK_SLUGS.map((network) => {
    const stem = EVM_CHAINS[network].evm.nodeVariable;
    return [
      network,
      {
        factory: { live: `PAYGATE_${stem}_FORWARDER_FACTORY`, test: `PAYGATE_${stem}_TEST_FORWARDER_FACTORY` },
        feePayer: { live: `PAYGATE_${stem}_FEE_PAYER_KEY`, test: `PAYGATE_${stem}_TEST_FEE_PAYER_KEY` },
      },
    ];
  }),
) as Record<EvmNetworkSlug, { factory: PerModeVariables; feePayer: PerModeVariables }>;

/** The test chain as the operator may replace it (PAYGATE_<stem>_TEST_CHAIN_ID), for the variables' descriptions. */
const testChainText = (network: EvmNetworkSlug) =>
  `${EVM_CHAINS[network].test.name}, or the local chain of PAYGATE_${EVM_CHAINS[network].evm.nodeVariable}_TEST_CHAIN_ID`;

/** The factory variables of every network, then the fee payers' (the order docs/configuration.md lists them in). */
const perNetworkVariables = Object.fromEntries([
  ...EVM_NETWORK_SLUGS.flatMap((n) => [
    [FORWARDER_VARIABLES[n].factory.live, factory(`${EVM_CHAINS[n].live.name} (live)`)],
    [FORWARDER_VARIABLES[n].factory.test, factory(testChainText(n))],
  ]),
  ...EVM_NETWORK_SLUGS.flatMap((n) => [
    [FORWARDER_VARIABLES[n].feePayer.live, feePayerKey(`${EVM_CHAINS[n].live.name} (live)`)],
    [FORWARDER_VARIABLES[n].feePayer.test, feePayerKey(testChainText(n))],
  ]),
]) as Record<string, ReturnType<typeof factory>>;

export const ForwarderEnvSchema = z.object({
  ...perNetworkVariables,
  PAYGATE_FEE_PAYER_LOW_BALANCE: z
    .string()
    .trim()
    .regex(/^\d{1,12}(\.\d{1,18})?$/, "must be a decimal amount of the network's coin, such as 0.05")
    .default("0.05")
    .describe(
      'Below this balance (in the network\'s coin: ETH, BNB, POL) a fee payer is "too low": `paygate_fee_payer_low` is 1 in /metrics and the flush job says so in the log. Default: `0.05`.',
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
/** The parsed variables; each network's (FORWARDER_VARIABLES) are read by name. */
export type ForwarderEnv = z.infer<typeof ForwarderEnvSchema> & Readonly<Record<string, unknown>>;

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

const text = (value: unknown) => (typeof value === "string" ? value : undefined);
const key = (value: unknown) => text(value)?.replace(/^0x/, "").toLowerCase();

const perNetwork = <T>(of: (variables: (typeof FORWARDER_VARIABLES)[EvmNetworkSlug]) => T): Record<EvmNetworkSlug, T> =>
  Object.fromEntries(EVM_NETWORK_SLUGS.map((n) => [n, of(FORWARDER_VARIABLES[n])])) as Record<EvmNetworkSlug, T>;

export function forwarderConfig(e: ForwarderEnv): ForwarderConfig {
  return {
    factories: perNetwork((v) => ({ live: text(e[v.factory.live]), test: text(e[v.factory.test]) })),
    feePayerKeys: perNetwork((v) => ({ live: key(e[v.feePayer.live]), test: key(e[v.feePayer.test]) })),
    lowBalance: e.PAYGATE_FEE_PAYER_LOW_BALANCE,
    flush: {
      minPayments: e.PAYGATE_FLUSH_MIN_PAYMENTS,
      maxAgeMs: e.PAYGATE_FLUSH_MAX_AGE_HOURS * 3_600_000,
      intervalMs: e.PAYGATE_FLUSH_INTERVAL_MS,
    },
  };
}

// The rules of a consolidation (issue 40; docs/settlement.md, Consolidating BTC and LTC): what a
// request may ask, which coins and networks it applies to, and its id.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { FieldError } from "../errors.ts";
import { isNumericString } from "../money/amounts.ts";
import { cryptoBySlug, type CryptoCurrency } from "../money/currencies.ts";
import { FEE_RATE_COINS, feeRateProblem } from "../money/fee-rates.ts";
import { CHAINS, allowedNetworksText, coinNetwork, defaultNetworkOf, isNetworkSlug, type NetworkSlug } from "../networks.ts";
import type { PaymentRails } from "../ports.ts";
import { destinationProblem } from "../refunds/rules.ts";

export const CONSOLIDATION_ID = /^co_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const newConsolidationId = () => `co_${randomUUID()}`;
export const isConsolidationId = (id: string) => CONSOLIDATION_ID.test(id);

/** Inputs one consolidation spends at most unless asked: a PSBT of 200 P2WPKH inputs is about 14 kvB, well under the 100 kvB standard limit. */
export const DEFAULT_MAX_INPUTS = 200;
export const MAX_INPUTS = 500;

const decimalText = z.union([z.string().trim(), z.number().transform(String)]);

export const ConsolidationBody = z.object({
  coin: z.string({ error: "coin is required (BTC or LTC)" }).trim(),
  network: z.string().trim().optional(),
  destination: z.string({ error: "destination is required: an address of the merchant's own wallet" }).trim().min(1, "destination is required"),
  fee_rate: decimalText.refine(isNumericString, 'fee_rate must be a positive number of sat/vB such as "5"'),
  max_inputs: z
    .number({ error: `max_inputs must be an integer from 1 to ${MAX_INPUTS}` })
    .int(`max_inputs must be an integer from 1 to ${MAX_INPUTS}`)
    .min(1, `max_inputs must be an integer from 1 to ${MAX_INPUTS}`)
    .max(MAX_INPUTS, `max_inputs must be an integer from 1 to ${MAX_INPUTS}`)
    .default(DEFAULT_MAX_INPUTS),
});
export type ConsolidationRequestBody = z.output<typeof ConsolidationBody>;

export interface ConsolidationTarget {
  crypto: CryptoCurrency;
  network: NetworkSlug;
  feeRate: string;
}

/** The coin, network, destination and fee rate checked together; every problem named, or the target. */
export function targetOf(
  body: ConsolidationRequestBody,
  rails: PaymentRails,
  isLive: boolean,
): { ok: true; target: ConsolidationTarget } | { ok: false; problems: FieldError[] } {
  const problems: FieldError[] = [];
  const crypto = cryptoBySlug(body.coin.toUpperCase());
  if (crypto === undefined || !FEE_RATE_COINS.includes(crypto.slug)) {
    problems.push({
      field: "coin",
      message: `coin must be ${FEE_RATE_COINS.join(" or ")}: only their outputs are spent together in one transaction`,
    });
    return { ok: false, problems };
  }
  const network = body.network === undefined ? defaultNetworkOf(crypto.slug) : body.network.toLowerCase();
  if (!isNetworkSlug(network) || coinNetwork(crypto.slug, network) === undefined || CHAINS[network].family !== "utxo") {
    problems.push({ field: "network", message: `network must be one of ${allowedNetworksText(crypto.slug)} for ${crypto.slug}` });
    return { ok: false, problems };
  }
  const rateProblem = feeRateProblem(body.fee_rate);
  if (rateProblem !== null) problems.push({ field: "fee_rate", message: rateProblem });
  const addressProblem = destinationProblem(rails, crypto, isLive, network, body.destination, "destination");
  if (addressProblem !== null) problems.push(addressProblem);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, target: { crypto, network, feeRate: body.fee_rate } };
}

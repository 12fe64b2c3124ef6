// The OpenAPI description of the settlement routes (issue 40; routes.ts beside it), assembled into
// the document by src/http/openapi.ts.
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errors } from "../../../core/errors.ts";
import { ConsolidationListParams } from "../../../core/settlement/consolidations.ts";
import { FlushListParams } from "../../../core/settlement/forwarders.ts";
import { ANY, errorResponses, pagedList, json, KEY_ROLE, limited, SECRET_ONLY, secretKey, WITH_BODY, WITH_PATH } from "../openapi-shared.ts";
import {
  ConsolidationListResponse,
  ConsolidationRequest,
  ConsolidationResponse,
  FlushListResponse,
  FlushRequest,
  FlushResponse,
  ForwarderSettingListResponse,
  ForwarderSettingRemovedResponse,
  ForwarderSettingRequest,
  ForwarderSettingResponse,
  SweepPlanResponse,
} from "./schemas.ts";
import { SweepPlanParams } from "../../../core/settlement/sweep-plan.ts";
import { registerOwnAddressPaths } from "./own-addresses-openapi.ts";
import { registerSweepPaths } from "./sweeps-openapi.ts";
import { EVM_NETWORK_SLUGS } from "../../../core/networks.ts";

const consolidationId = z.object({
  consolidation_id: z.string().meta({ param: { name: "consolidation_id", in: "path" }, description: "The consolidation's `id` (`co_…`)." }),
});

const consolidationPage = pagedList(ConsolidationListParams, "consolidation");
const flushPage = pagedList(FlushListParams, "flush");
const networkParam = z.object({
  network: z
    .string()
    .meta({ param: { name: "network", in: "path" }, description: `An EVM network: ${EVM_NETWORK_SLUGS.map((n) => `\`${n}\``).join(", ")}.` }),
});
const flushId = z.object({ flush_id: z.string().meta({ param: { name: "flush_id", in: "path" }, description: "The flush's `id` (`fl_…`)." }) });
const notConfigured = {
  error: errors.forwardersNotConfigured("Ethereum Sepolia testnet (test mode)", "PAYGATE_ETH_TEST_FEE_PAYER_KEY"),
  when: "the operator has not set the network's factory or fee payer key in this mode; the message names the variable",
};
const nodeDown = {
  error: errors.forwarderNodeUnavailable("The ethereum test node (PAYGATE_ETH_TEST_RPC_URL)", "connection refused"),
  when: "the network's node cannot be asked",
};

export function registerSettlementPaths(registry: OpenAPIRegistry): void {
  const notFound = { error: errors.consolidationNotFound("…"), when: "an unknown id, another merchant's or the other mode's consolidation" };

  registry.registerPath({
    method: "post",
    path: "/v1/settlements/consolidations",
    operationId: "createConsolidation",
    summary: "Consolidate settled BTC or LTC payments",
    description:
      "Not in the spec (issue 40; docs/settlement.md): an unsigned PSBT spending the outputs of the merchant's settled payments (SUCCESSFUL, past their finality depth, unrefunded, in no other consolidation, unspent on the node) to `destination` at `fee_rate`, each input with its key origin so the merchant's wallet signs it. paygate sees it mined by its id (`tx_hash`).",
    security: secretKey,
    request: { body: json(ConsolidationRequest, "What to consolidate, where to, at what fee rate.") },
    responses: {
      201: limited(ConsolidationResponse, "The consolidation, open, with its PSBT."),
      ...errorResponses([
        {
          error: errors.consolidationValidation([]),
          when: "missing or invalid fields (a coin other than BTC/LTC, an address of another network or mode, a fee rate out of bounds); `errors` names each",
        },
        SECRET_ONLY,
        KEY_ROLE,
        { error: errors.nothingToConsolidate("LTC on litecoin in test mode"), when: "no settled output is left to spend" },
        { error: errors.consolidationBelowDust("0.00001 LTC", "0.00002 LTC", "0.00000294 LTC"), when: "the fee would leave the destination dust" },
        { error: errors.consolidationOutputsTaken(), when: "another consolidation took some outputs meanwhile" },
        {
          error: errors.consolidationNodeUnavailable("The LTC test node (PAYGATE_LTC_TEST_NODE_URL)", "connection refused"),
          when: "the own node cannot say which outputs are unspent",
        },
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/settlements/consolidations",
    operationId: "listConsolidations",
    summary: "List consolidations",
    description: "The secret key's merchant's consolidations of its mode, newest first, paged as `/v1/transactions`.",
    security: secretKey,
    request: { query: consolidationPage.query },
    responses: {
      200: limited(ConsolidationListResponse, "A page of consolidations."),
      ...errorResponses([...consolidationPage.refusals, SECRET_ONLY, ...ANY]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/settlements/consolidations/{consolidation_id}",
    operationId: "retrieveConsolidation",
    summary: "Retrieve a consolidation",
    description: "Its state: open (PSBT given), seen (its transaction is on the node), confirmed, canceled.",
    security: secretKey,
    request: { params: consolidationId },
    responses: { 200: limited(ConsolidationResponse, "The consolidation."), ...errorResponses([SECRET_ONLY, notFound, ...WITH_PATH, ...ANY]) },
  });

  registry.registerPath({
    method: "post",
    path: "/v1/settlements/consolidations/{consolidation_id}/cancel",
    operationId: "cancelConsolidation",
    summary: "Cancel a consolidation",
    description: "Only while open (not seen on the chain): its outputs are offered again.",
    security: secretKey,
    request: { params: consolidationId },
    responses: {
      200: limited(ConsolidationResponse, "The canceled consolidation."),
      ...errorResponses([
        SECRET_ONLY,
        KEY_ROLE,
        notFound,
        { error: errors.consolidationNotOpen("seen"), when: "the consolidation is no longer open" },
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registerForwarderPaths(registry);
  registerOwnAddressPaths(registry);
  registerSweepPaths(registry);
}

function registerForwarderPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "get",
    path: "/v1/settlements/forwarders",
    operationId: "listForwarderSettings",
    summary: "List deposit forwarder settings",
    description: "Not in the spec (issue 40; docs/settlement.md): the EVM networks on which the key's mode's new payments go to deposit forwarders.",
    security: secretKey,
    responses: { 200: limited(ForwarderSettingListResponse, "The settings, by network."), ...errorResponses([SECRET_ONLY, ...ANY]) },
  });

  registry.registerPath({
    method: "put",
    path: "/v1/settlements/forwarders/{network}",
    operationId: "setForwarderSetting",
    summary: "Settle an EVM network through deposit forwarders",
    description:
      "New payments on the network (in the key's mode) get a deposit forwarder's address whose only destination is `destination`; payments already initiated keep theirs. Refused for an address that does not take the network's coin (checked with a call on the node).",
    security: secretKey,
    request: { params: networkParam, body: json(ForwarderSettingRequest, "The settlement address.") },
    responses: {
      200: limited(ForwarderSettingResponse, "The setting."),
      ...errorResponses([
        {
          error: errors.forwarderValidation([]),
          when: "an unknown or non-EVM network, an invalid address, or one that refuses the coin; `errors` names each",
        },
        SECRET_ONLY,
        KEY_ROLE,
        notConfigured,
        {
          error: errors.forwarderFactoryInvalid("PAYGATE_ETH_TEST_FORWARDER_FACTORY", "no contract at 0x…"),
          when: "the configured factory is not paygate's",
        },
        nodeDown,
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "delete",
    path: "/v1/settlements/forwarders/{network}",
    operationId: "removeForwarderSetting",
    summary: "Stop settling an EVM network through forwarders",
    description: "New payments get the key's own addresses again; forwarders already handed out are still flushed.",
    security: secretKey,
    request: { params: networkParam },
    responses: {
      200: limited(ForwarderSettingRemovedResponse, "The network is back on the key's own addresses."),
      ...errorResponses([
        { error: errors.forwarderValidation([]), when: "an unknown or non-EVM network" },
        SECRET_ONLY,
        KEY_ROLE,
        { error: errors.forwarderSettingNotFound("ethereum"), when: "no forwarder setting for that network in this mode" },
        ...WITH_PATH,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/v1/settlements/flushes",
    operationId: "createFlush",
    summary: "Flush settled deposit forwarders",
    description:
      "One factory transaction, paid by the operator's fee payer, creates and empties the forwarders (up to 100) of the merchant's SUCCESSFUL payments past their finality depth on the network, into the merchant's settlement address. Recorded before it is sent; answered once mined (`confirmed`), or `sending` when the receipt takes longer (the flush job reads it back).",
    security: secretKey,
    request: { body: json(FlushRequest, "Which network.") },
    responses: {
      201: limited(FlushResponse, "The flush."),
      ...errorResponses([
        { error: errors.flushValidation([]), when: "a missing, unknown or non-EVM network" },
        SECRET_ONLY,
        KEY_ROLE,
        { error: errors.nothingToFlush("Ethereum Sepolia testnet test mode"), when: "no settled forwarder is waiting" },
        { error: errors.flushForwardersTaken(), when: "another flush took some forwarders meanwhile" },
        notConfigured,
        { error: errors.feePayerTooLow("0x…", "0.001 ETH", "0.004 ETH"), when: "the fee payer cannot pay the flush's gas" },
        nodeDown,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/settlements/flushes",
    operationId: "listFlushes",
    summary: "List flushes",
    description: "The secret key's merchant's flushes of its mode, newest first, paged as `/v1/transactions`.",
    security: secretKey,
    request: { query: flushPage.query },
    responses: { 200: limited(FlushListResponse, "A page of flushes."), ...errorResponses([...flushPage.refusals, SECRET_ONLY, ...ANY]) },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/settlements/flushes/{flush_id}",
    operationId: "retrieveFlush",
    summary: "Retrieve a flush",
    description: "Its state (sending, confirmed, failed), gas, fee and what each payment's forwarder moved.",
    security: secretKey,
    request: { params: flushId },
    responses: {
      200: limited(FlushResponse, "The flush."),
      ...errorResponses([
        SECRET_ONLY,
        { error: errors.flushNotFound("…"), when: "an unknown id, another merchant's or the other mode's flush" },
        ...WITH_PATH,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/settlements/sweep-plan",
    operationId: "retrieveSweepPlan",
    summary: "Plan a sweep of per-payment addresses",
    description:
      "Not in the spec (issue 40; docs/settlement.md, Sweeping fresh addresses): for the merchant's SUCCESSFUL payments past their finality depth on an account network (EVM, TRON) whose address is derived from its key (not forwarders), what each address holds now, the fee coin moving it to `destination` needs (from the node), the totals and the share of the value the fees take. Moves nothing: the sweep tool (tools/sweep) signs on the merchant's machine. Needs `manage_settlement`.",
    security: secretKey,
    request: { query: SweepPlanParams },
    responses: {
      200: limited(SweepPlanResponse, "The plan."),
      ...errorResponses([
        {
          error: errors.sweepPlanValidation([]),
          when: "an unknown or UTXO network, a coin not paid on it, a destination that is not an address of the network (or none given and no forwarder setting); `errors` names each",
        },
        { error: errors.invalidListParameters([]), when: "an unknown parameter, a limit out of 1–200" },
        SECRET_ONLY,
        KEY_ROLE,
        {
          error: errors.sweepNodeUnavailable("The Ethereum Sepolia testnet node (PAYGATE_ETH_TEST_RPC_URL)", "connection refused"),
          when: "the network's node cannot be asked; the message names the network",
        },
        ...ANY,
      ]),
    },
  });
}

// The OpenAPI description of recorded sweeps (issue 40; sweeps-routes.ts beside it), registered with
// the other settlement routes (openapi.ts).
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errors } from "../../../core/errors.ts";
import { SweepListParams } from "../../../core/settlement/sweeps.ts";
import { ANY, errorResponses, json, KEY_ROLE, limited, pagedList, SECRET_ONLY, secretKey, WITH_BODY, WITH_PATH } from "../openapi-shared.ts";
import { SweepListResponse, SweepRecordRequest, SweepRecordResponse, SweepResponse } from "./sweeps-schemas.ts";

const sweepPage = pagedList(SweepListParams, "sweep");
const sweepId = z.object({ sweep_id: z.string().meta({ param: { name: "sweep_id", in: "path" }, description: "The sweep's `id` (`sw_…`)." }) });
const HASH = `0x${"ab".repeat(32)}`;

export function registerSweepPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "post",
    path: "/v1/settlements/sweeps",
    operationId: "recordSweeps",
    summary: "Record sweeps the merchant sent",
    description:
      "Not in the spec (issue 40; docs/settlement.md, Recording sweeps): the hashes of sweeps the merchant sent from its payment addresses (what `tools/sweep --execute --report` prints), each read from the network's node: mined and successful, sent from the address of one of the merchant's payments in the key's mode, what it moved (a token paygate takes, else the network's coin) to where and its fee, with the fee wallet's top-up that paid its gas. Each is recorded once (a ledger entry of kind `sweep`, a `settlement.sweep.recorded` event); posting it again gives the same sweep back (200). Nothing is recorded when one of them is refused. Needs `manage_settlement`.",
    security: secretKey,
    request: { body: json(SweepRecordRequest, "The network and the sweeps' hashes.") },
    responses: {
      201: limited(SweepRecordResponse, "The sweeps, some recorded now (`meta.recorded`)."),
      200: limited(SweepRecordResponse, "Every sweep had been recorded before: the same ones."),
      ...errorResponses([
        {
          error: errors.sweepRecordValidation([]),
          when: "a missing or non-EVM network, a malformed hash, both or neither of tx_hash and sweeps; `errors` names each",
        },
        {
          error: errors.sweepNotFromPaymentAddress(HASH, "0x…", "test"),
          when: "the transaction was not sent from the address of one of the merchant's payments in the key's mode; the message names the sender",
        },
        {
          error: errors.sweepTransactionInvalid(HASH, "moves neither ETH nor a token paygate takes on ethereum off 0x…"),
          when: "it moves nothing paygate knows, several tokens, or a top-up that sends no coin to the swept address (or is another sweep's)",
        },
        SECRET_ONLY,
        KEY_ROLE,
        {
          error: errors.sweepTransactionNotFound(HASH, "The Ethereum Sepolia testnet node"),
          when: "the node does not know the transaction (or the top-up)",
        },
        { error: errors.sweepTransactionNotFinal(HASH, "is not mined yet"), when: "it is not mined yet, or it reverted" },
        { error: errors.sweepTopUpTaken(HASH), when: "another request recorded the top-up with another sweep at the same moment" },
        {
          error: errors.sweepTransactionNodeUnavailable("The Ethereum Sepolia testnet node (PAYGATE_ETH_TEST_RPC_URL)", "connection refused"),
          when: "the network's node cannot be asked (or none is configured); the message names it",
        },
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/settlements/sweeps",
    operationId: "listSweeps",
    summary: "List recorded sweeps",
    description: "The secret key's merchant's recorded sweeps of its mode, newest recorded first, paged as `/v1/transactions`; `network` filters.",
    security: secretKey,
    request: {
      query: sweepPage.query.extend({ network: z.string().optional().meta({ description: "Only this network's sweeps (an EVM network or tron)." }) }),
    },
    responses: { 200: limited(SweepListResponse, "A page of sweeps."), ...errorResponses([...sweepPage.refusals, SECRET_ONLY, ...ANY]) },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/settlements/sweeps/{sweep_id}",
    operationId: "retrieveSweep",
    summary: "Retrieve a recorded sweep",
    description: "What it moved, to where, its fee and its top-up.",
    security: secretKey,
    request: { params: sweepId },
    responses: {
      200: limited(SweepResponse, "The sweep."),
      ...errorResponses([
        SECRET_ONLY,
        { error: errors.sweepNotFound("…"), when: "an unknown id, another merchant's or the other mode's sweep" },
        ...WITH_PATH,
        ...ANY,
      ]),
    },
  });
}

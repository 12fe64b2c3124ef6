// @paygate/sdk: a typed client of paygate (issue 27). docs/sdk.md is the guide.
export * from "./client.ts";
export * from "./errors.ts";
export * from "./webhooks.ts";
export { InitializeTransactionDocument, InitiatePaymentDocument, TransactionDocument } from "./generated/graphql.ts";
export type {
  InitializeTransactionMutation,
  InitializeTransactionMutationVariables,
  InitiatePaymentMutation,
  InitiatePaymentMutationVariables,
  SdkTransactionFragment,
  TransactionQuery,
  TransactionQueryVariables,
} from "./generated/graphql.ts";
export type { components, operations, paths } from "./generated/openapi.ts";

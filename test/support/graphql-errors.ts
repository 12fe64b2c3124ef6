// The first GraphQL error a graphql-request call failed with, for tests of refusals.
import { ClientError } from "graphql-request";

export async function graphqlFailure(request: Promise<unknown>) {
  try {
    await request;
  } catch (error) {
    if (error instanceof ClientError && error.response.errors?.[0]) return error.response.errors[0];
    throw error;
  }
  throw new Error("expected the request to fail");
}

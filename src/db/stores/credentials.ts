// API keys and payment links, looked up by what a request carries (a key's hash, a link's slug).
import type { CredentialStore } from "../../core/stores/credentials.ts";
import type { Database } from "../types.ts";
import { merchantIdentity } from "./rows.ts";

export function credentialStore(db: Database): CredentialStore {
  return {
    apiKeyByHash: (keyHash) =>
      db.apiKey.findUnique({
        where: { keyHash },
        select: {
          id: true,
          kind: true,
          prefix: true,
          createdByUserId: true,
          createdByEmail: true,
          createdByRole: true,
          isLive: true,
          revokedAt: true,
          expiresAt: true,
          keyHash: true,
          merchant: merchantIdentity,
        },
      }),
    clientSecretOf: (id) =>
      db.transaction.findUnique({ where: { id }, select: { id: true, isLive: true, clientSecretEnc: true, merchant: merchantIdentity } }),
    paymentLinkBySlug: (slug) =>
      db.paymentLink.findUnique({ where: { slug }, select: { id: true, isLive: true, active: true, merchant: merchantIdentity } }),
  };
}

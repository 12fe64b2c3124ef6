// Serialises one HD node under any SLIP-132 version, as the various wallets export it.
import { HDKey } from "@scure/bip32";
import { versionsOf } from "../../src/rails/wallets/extended-keys.ts";
import type { KeyPrefix } from "../../src/rails/wallets/networks.ts";

export function serializeKey(node: HDKey, prefix: KeyPrefix, kind: "public" | "private" = "public"): string {
  const key = new HDKey({
    versions: versionsOf(prefix),
    depth: node.depth,
    index: node.index,
    parentFingerprint: node.parentFingerprint,
    chainCode: node.chainCode!,
    ...(kind === "public" ? { publicKey: node.publicKey! } : { privateKey: node.privateKey! }),
  });
  return kind === "public" ? key.publicExtendedKey : key.privateExtendedKey;
}

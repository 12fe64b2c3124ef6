// The merchant's own-address setting (issue 40; docs/settlement.md, Own addresses): per TRON network
// and mode, on or off, and k, the number of its own addresses payments go to. A change affects new
// payments only: a payment keeps the address and amount it was given at initiate.
import { z } from "zod";
import { auditEntry, type AuditAction } from "../access/audit-log.ts";
import { errors } from "../errors.ts";
import { isNetworkSlug, type NetworkSlug } from "../networks.ts";
import type { OwnAddressSettingRecord } from "../records/own-addresses.ts";
import type { AuditActorWrite, AuditWrite } from "../stores/audit-log.ts";
import { parseBody } from "../transactions/requests.ts";
import { type OwnAddressDeps, OWN_ADDRESS_NETWORKS, ownAddressesOf, policyOf } from "../transactions/own-address.ts";
import { type OwnAddressSettingView, ownAddressSettingView } from "./view.ts";

export type { OwnAddressDeps };

/** Whose setting or receipts a use case works on (as core/settlement's SettlementOwner): by null for a reader. */
export interface OwnAddressOwner {
  merchantId: number;
  isLive: boolean;
  by: AuditActorWrite | null;
}

/** The most own addresses (k) a merchant may use on one network and mode. */
export const MAX_OWN_ADDRESSES = 10;

const SettingBody = z.object({
  address_count: z
    .number({ error: `address_count is required: an integer from 1 to ${MAX_OWN_ADDRESSES}` })
    .int(`address_count must be an integer from 1 to ${MAX_OWN_ADDRESSES}`)
    .min(1, `address_count must be an integer from 1 to ${MAX_OWN_ADDRESSES}`)
    .max(MAX_OWN_ADDRESSES, `address_count must be an integer from 1 to ${MAX_OWN_ADDRESSES}`),
});

export function ownAddressNetwork(raw: string): NetworkSlug {
  const network = raw.trim().toLowerCase();
  if (!isNetworkSlug(network) || !OWN_ADDRESS_NETWORKS.includes(network))
    throw errors.ownAddressValidation([{ field: "network", message: `network must be one of ${OWN_ADDRESS_NETWORKS.join(", ")} (got '${raw}')` }]);
  return network;
}

const modeText = (isLive: boolean) => (isLive ? "live mode" : "test mode");

function auditOf(deps: OwnAddressDeps, owner: OwnAddressOwner, action: AuditAction, target: string): AuditWrite | null {
  return owner.by === null ? null : auditEntry(owner.by, owner.merchantId, deps.clock.now(), action, target);
}

async function viewOf(deps: OwnAddressDeps, s: OwnAddressSettingRecord): Promise<OwnAddressSettingView> {
  const network = s.network as NetworkSlug;
  return ownAddressSettingView(s, await ownAddressesOf(deps, s.merchantId, network, s.isLive, s.addressCount), policyOf(deps).maxExtraUnits);
}

/** GET /v1/settlements/own-addresses: the merchant's settings in the key's mode. */
export async function ownAddressSettings(deps: OwnAddressDeps, owner: OwnAddressOwner): Promise<OwnAddressSettingView[]> {
  const settings = await deps.stores.ownAddresses.settings(owner.merchantId, owner.isLive);
  return Promise.all(settings.map((s) => viewOf(deps, s)));
}

/** PUT /v1/settlements/own-addresses/{network}: new payments on the network go to the first k own addresses, told apart by amount. */
export async function setOwnAddressSetting(
  deps: OwnAddressDeps,
  owner: OwnAddressOwner,
  rawNetwork: string,
  body: unknown,
): Promise<OwnAddressSettingView> {
  const network = ownAddressNetwork(rawNetwork);
  const parsed = parseBody(SettingBody, body);
  if (!parsed.ok) throw errors.ownAddressValidation(parsed.errors);
  const count = parsed.value.address_count;
  const saved = await deps.stores.ownAddresses.putSetting(
    { merchantId: owner.merchantId, network, isLive: owner.isLive, addressCount: count, updatedAt: deps.clock.now() },
    auditOf(deps, owner, "own_address_setting.set", `${network} in ${modeText(owner.isLive)}: ${count} own address${count === 1 ? "" : "es"}`),
  );
  return viewOf(deps, saved);
}

/** DELETE /v1/settlements/own-addresses/{network}: new payments get a fresh address each again. */
export async function removeOwnAddressSetting(deps: OwnAddressDeps, owner: OwnAddressOwner, rawNetwork: string): Promise<void> {
  const network = ownAddressNetwork(rawNetwork);
  const removed = await deps.stores.ownAddresses.removeSetting(
    owner.merchantId,
    network,
    owner.isLive,
    auditOf(deps, owner, "own_address_setting.remove", `${network} in ${modeText(owner.isLive)}`),
  );
  if (!removed) throw errors.ownAddressSettingNotFound(network);
}

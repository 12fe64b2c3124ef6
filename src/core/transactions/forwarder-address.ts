// Initiate's side of deposit forwarders (issue 40; docs/settlement.md): when the merchant settles an
// EVM network through forwarders in this mode, the payment's address is its forwarder's CREATE2
// address (salt from the transaction's id, destination the setting's now), recorded with the payment
// so that a later change of the setting leaves it alone.
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { CHAINS, networkName, type NetworkSlug } from "../networks.ts";

export type ForwarderAddressDeps = Pick<CoreDeps, "stores" | "forwarderRails" | "clock">;

/** The forwarder's address to hand out, or null: the key's own address (no setting, or not an EVM network). */
export async function forwarderAddressFor(
  deps: ForwarderAddressDeps,
  payment: { merchantId: number; isLive: boolean; network: NetworkSlug; transactionId: string },
): Promise<string | null> {
  const rails = deps.forwarderRails;
  if (CHAINS[payment.network].family !== "evm" || rails === undefined) return null;
  const setting = await deps.stores.forwarders.setting(payment.merchantId, payment.network, payment.isLive);
  if (setting === null) return null;
  const factory = rails.factory(payment.network, payment.isLive);
  // The operator took the factory away after the merchant chose forwarders: no address it could not flush.
  if (!factory.ok) throw errors.forwardersNotConfigured(networkName(payment.network, payment.isLive), factory.variable);
  const { salt, address } = rails.forwarder(factory.factory, setting.destination, payment.transactionId);
  await deps.stores.forwarders.recordDeposit({
    transactionId: payment.transactionId,
    merchantId: payment.merchantId,
    isLive: payment.isLive,
    network: payment.network,
    factory: factory.factory,
    destination: setting.destination,
    salt,
    address,
    createdAt: deps.clock.now(),
  });
  return address;
}

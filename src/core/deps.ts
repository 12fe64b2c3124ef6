// What every operation of the core is given: its stores, its ports and its policy. The gateway
// (src/core/gateway.ts) holds one of these; adapters never see it.
import type { Credentials } from "./credentials.ts";
import type { ExplorerSettings } from "./networks.ts";
import type { PrivateTargets } from "./private-targets.ts";
import type {
  AddressBalances,
  AddressWatch,
  NodeAvailability,
  Clock,
  ConsolidationRails,
  ForwarderRails,
  SweepRails,
  EventRedelivery,
  PaymentRails,
  PriceFeed,
  QrRenderer,
  RefundPayments,
  WebhookSender,
} from "./ports.ts";
import type { OwnAddressPolicy } from "./records/own-addresses.ts";
import type { SecretBox } from "./secrets.ts";

import type { Stores } from "./stores/index.ts";
import type { LifecyclePolicy } from "./policies.ts";

export interface CoreDeps {
  stores: Stores;
  credentials: Credentials;
  prices: PriceFeed;
  rails: PaymentRails;
  qr: QrRenderer;
  clock: Clock;
  secrets: SecretBox;
  /** The private destinations webhook URLs may name, per mode (PAYGATE_WEBHOOK_ALLOW_PRIVATE, PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE, the allowlist). */
  privateWebhookTargets: PrivateTargets;
  /** The most webhook endpoints per merchant and mode (PAYGATE_WEBHOOK_ENDPOINTS_MAX); 16 when not given. */
  webhookEndpointsMax?: number;
  /** PAYGATE_WEBHOOK_TEST_EVENT_DETAILS: the dashboard's test events to private targets show status, error and latency; off when not given. */
  webhookTestEventDetails?: boolean;
  /** Windows and tolerance of a transaction's life. */
  lifecycle: LifecyclePolicy;
  /** PAYGATE_PUBLIC_URL: the service's public base URL (no trailing slash), for checkout_url. */
  publicUrl: string;
  /** Sends the dashboard's test events as deliveries are sent; without it they cannot be sent (an error). */
  webhookSender?: WebhookSender;
  /** The webhook dispatcher, for a dashboard user's redelivery; the service always has one (src/runtime.ts). */
  redelivery?: EventRedelivery;
  /** Unsigned refund transactions and URIs (issue 26); absent, a refund is shown without its payment instructions. */
  refundPayments?: RefundPayments;
  /** Consolidation PSBTs of settled BTC and LTC outputs (issue 40); absent, nothing can be consolidated. */
  consolidationRails?: ConsolidationRails;
  /** TRON own-address mode's bounds (issue 40): N and the late window an amount stays held; absent, DEFAULT_OWN_ADDRESS_POLICY. */
  ownAddresses?: OwnAddressPolicy;
  /** Deposit forwarders on EVM networks (issue 40); absent, no merchant can turn them on. */
  forwarderRails?: ForwarderRails;
  /** Sweep plans' holdings and fees from the account networks' nodes (issue 40); absent, a sweep plan says no node is configured. */
  sweepRails?: SweepRails;
  /** Told of each handed-out address (an own node imports it at once); absent, the watcher's next pass takes it. */
  addressWatch?: AddressWatch;
  /** Whether a network's nodes answer (initiate refuses a network with none, 503); absent, every network counts as reachable. */
  nodes?: NodeAvailability;
  /** Balances of handed-out addresses (the funds-held view); absent, that view says no chain node is configured. */
  balances?: AddressBalances;
  /** Days a refund claim link stays valid (PAYGATE_REFUND_CLAIM_DAYS). */
  refundClaimDays?: number;
  /** Which test chains are local (no public explorer) and the operator's explorers; the public testnets' when absent. */
  explorers?: ExplorerSettings;
}

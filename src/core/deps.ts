// What every operation of the core is given: its stores, its ports and its policy. The gateway
// (src/core/gateway.ts) holds one of these; adapters never see it.
import type { Credentials } from "./merchants/credentials.ts";
import type { PrivateTargets } from "./merchants/private-targets.ts";
import type { Clock, EventRedelivery, PaymentRails, PriceFeed, QrRenderer, WebhookSender } from "./ports.ts";
import type { SecretBox } from "./secrets.ts";
import type { Stores } from "./stores/index.ts";
import type { LifecyclePolicy } from "./transactions/lifecycle.ts";

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
  /** Windows and tolerance of a transaction's life. */
  lifecycle: LifecyclePolicy;
  /** PAYGATE_PUBLIC_URL: the service's public base URL (no trailing slash), for checkout_url. */
  publicUrl: string;
  /** Sends the dashboard's test events as deliveries are sent; without it they cannot be sent (an error). */
  webhookSender?: WebhookSender;
  /** The webhook dispatcher, for a dashboard user's redelivery; the service always has one (src/runtime.ts). */
  redelivery?: EventRedelivery;
}

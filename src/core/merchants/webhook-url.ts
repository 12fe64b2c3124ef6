// Where webhooks may be sent. Deliveries of both modes come from our network, so a merchant URL must
// not turn them into requests against our own infrastructure (SSRF): private and local hosts only
// where the operator allows them (private-targets.ts), for an internal receiver or local development.
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import type { PrivateAllowlist } from "../private-targets.ts";

export type WebhookMode = "test" | "live";

/** `privateHost`: refused only for naming a private or local host, which the operator may allow. */
export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string; privateHost?: true };

const MAX_URL_LENGTH = 2048;

/** What a checked URL is called in the refusals: a webhook URL, or a transaction's return URL. */
export interface UrlKind {
  noun: string;
  example: string;
  /** Why a username or password is refused. */
  noCredentials: string;
}

const WEBHOOK_URL: UrlKind = {
  noun: "webhook URL",
  example: "https://example.com/webhooks",
  noCredentials: "receivers authenticate deliveries by their signature",
};

/** A transaction's return_url (where the hosted checkout sends the customer back): the same rules as a webhook URL of its mode. */
export const RETURN_URL: UrlKind = {
  noun: "return URL",
  example: "https://shop.example.com/orders/42",
  noCredentials: "the customer's browser would show them",
};

/** A transaction's cancel_url (the checkout's "back to the shop" link before paying): the return URL's rules. */
export const CANCEL_URL: UrlKind = {
  noun: "cancel URL",
  example: "https://shop.example.com/cart",
  noCredentials: "the customer's browser would show them",
};

/**
 * Validates a merchant's webhook URL when it is set (or another URL of `kind`); returns it normalised.
 * `allowPrivate`: private and local hosts are allowed in this mode; else only the `allowlist`'s.
 */
export function checkWebhookUrl(
  url: string,
  mode: WebhookMode,
  options: { allowPrivate: boolean; allowlist?: PrivateAllowlist; kind?: UrlKind },
): UrlCheck {
  const { noun, example, noCredentials } = options.kind ?? WEBHOOK_URL;
  if (url.length > MAX_URL_LENGTH) return refuse(`${noun}s must be at most ${MAX_URL_LENGTH} characters (got ${url.length})`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse(`${noun} is not a valid absolute URL; use a full URL such as ${example}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return refuse(`${noun}s must use http or https (got ${parsed.protocol})`);
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return refuse(`${noun}s must not contain a username or password; ${noCredentials}`);
  }
  // An empty fragment ("…/hook#") parses to hash "", so the raw text is checked too.
  if (parsed.hash !== "" || url.includes("#")) return refuse(`${noun}s must not contain a fragment (#…); remove it`);
  const normalised = parsed.toString();
  if (normalised.length > MAX_URL_LENGTH) {
    return refuse(`${noun}s must be at most ${MAX_URL_LENGTH} characters once normalised (got ${normalised.length})`);
  }
  if (mode === "live" && parsed.protocol !== "https:") return refuse(`live-mode ${noun}s must use https (got ${parsed.protocol})`);
  if (!options.allowPrivate && !options.allowlist?.includesHost(parsed.hostname)) {
    const problem = privateHostProblem(parsed.hostname);
    if (problem) return { ok: false, reason: `${mode}-mode ${noun}s must point at a public host: ${problem}`, privateHost: true };
  }
  return { ok: true, url: normalised };
}

function refuse(reason: string): UrlCheck {
  return { ok: false, reason };
}

const INTERNAL_SUFFIXES = [".internal", ".local", ".home.arpa"];

/** The URL names a private, loopback, reserved, local or intranet host (the checks a public webhook URL must pass). */
export function namesPrivateHost(url: string): boolean {
  try {
    return privateHostProblem(new URL(url).hostname) !== null;
  } catch {
    return false;
  }
}

/** Why a URL host (as `URL.hostname` gives it) is not a public one, or null if it may be. */
function privateHostProblem(hostname: string): string | null {
  // The URL parser has already turned numeric forms such as 0x7f.1 into dotted quads.
  const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname.replace(/\.+$/, "").toLowerCase();
  if (isIP(host) !== 0) {
    return isPublicAddress(host) ? null : `${host} is a private, loopback or reserved address; use a public hostname or IP`;
  }
  if (host === "localhost" || host.endsWith(".localhost")) return `${host} is the local machine; use a public hostname`;
  if (!host.includes(".")) return `${host} is a single-label (intranet) name; use a fully qualified public hostname`;
  const suffix = INTERNAL_SUFFIXES.find((s) => host.endsWith(s));
  if (suffix) return `${host} is under ${suffix}, which only resolves inside private networks; use a public hostname`;
  return null;
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");
const NAT64 = ipaddr.parseCIDR("64:ff9b::/96");

/**
 * True when `ip` (IPv4 or IPv6 text, as DNS returns it) is a globally routable unicast address:
 * not private, loopback, link-local (where cloud metadata services live), carrier-grade NAT,
 * multicast, documentation or otherwise reserved (ipaddr.js's ranges, RFC 6890).
 */
export function isPublicAddress(ip: string): boolean {
  const text = ip.replace(/%.*$/, "");
  // Only the forms DNS returns: ipaddr.js would also read "1" or octal parts as IPv4.
  if (isIP(text) === 0) return false;
  const address = ipaddr.parse(text);
  if (address.kind() === "ipv4") return address.range() === "unicast";
  const v6 = address as ipaddr.IPv6;
  // Forms that carry an IPv4 address are judged by it: mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16).
  if (v6.isIPv4MappedAddress()) return isPublicAddress(v6.toIPv4Address().toString());
  if (v6.match(NAT64)) return isPublicAddress(embeddedV4(v6.parts[6], v6.parts[7]));
  if (v6.range() === "6to4") return isPublicAddress(embeddedV4(v6.parts[1], v6.parts[2]));
  return v6.range() === "unicast" && v6.match(GLOBAL_UNICAST_V6);
}

function embeddedV4(high = 0, low = 0): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

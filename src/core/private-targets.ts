// Which private destinations (loopback, private, link-local, …) webhooks may reach: the operator's
// choice, per mode, never a merchant's. A URL that names one is refused when set, and a delivery
// whose host resolves to one is refused at connect time (src/rails/http/outbound.ts). An answer that
// came from a private address may be an internal service's: its body is never kept nor shown to a
// merchant's dashboard users (docs/security.md, "Webhook destinations").
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import type { Mode } from "./mode.ts";

/**
 * Private hosts and networks an operator lets webhooks of either mode reach (PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST):
 * exact host names, IP addresses and CIDR ranges. Anything else stays refused.
 */
export class PrivateAllowlist {
  static readonly NONE = new PrivateAllowlist([], []);

  private constructor(
    /** Lower-case names, without a trailing dot. */
    readonly hosts: readonly string[],
    readonly networks: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][],
  ) {}

  /** `hooks.internal, 10.1.2.3, 10.20.0.0/16, fd00::/8`; the problem with the first bad entry otherwise. */
  static parse(text: string): PrivateAllowlist | { problem: string } {
    const hosts: string[] = [];
    const networks: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
    for (const raw of text.split(",")) {
      const entry = raw.trim().toLowerCase().replace(/\.$/, "");
      if (entry === "") continue;
      const literal = entry.startsWith("[") && entry.endsWith("]") ? entry.slice(1, -1) : entry;
      if (ipaddr.isValidCIDR(entry)) {
        networks.push(ipaddr.parseCIDR(entry));
      } else if (isIP(literal) !== 0) {
        const address = ipaddr.process(literal);
        networks.push([address, address.kind() === "ipv4" ? 32 : 128]);
      } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry) && !/^[0-9.]+$/.test(entry)) {
        hosts.push(entry);
      } else {
        return { problem: `'${raw.trim()}' is not a host name, an IP address or a CIDR range (such as hooks.internal, 10.1.2.3 or 10.20.0.0/16)` };
      }
    }
    return hosts.length === 0 && networks.length === 0 ? PrivateAllowlist.NONE : new PrivateAllowlist(hosts, networks);
  }

  get empty(): boolean {
    return this.hosts.length === 0 && this.networks.length === 0;
  }

  /** Whether a URL's host (`URL.hostname`: a name, an IPv4 address or a bracketed IPv6 one) is listed. */
  includesHost(hostname: string): boolean {
    const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname.toLowerCase().replace(/\.$/, "");
    return isIP(host) !== 0 ? this.includesAddress(host) : this.hosts.includes(host);
  }

  /** Whether an address (as DNS returns it) is in a listed network. */
  includesAddress(address: string): boolean {
    const text = address.replace(/%.*$/, "");
    if (isIP(text) === 0) return false;
    // An IPv4-mapped IPv6 address is its IPv4 one.
    const parsed = ipaddr.process(text);
    return this.networks.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits));
  }

  /** For the connect-time guard: a connection to `address` for the URL host `hostname` may go ahead. */
  allows(hostname: string, address: string): boolean {
    return this.includesHost(hostname) || this.includesAddress(address);
  }
}

export interface PrivateTargets {
  /** PAYGATE_WEBHOOK_ALLOW_PRIVATE: live-mode URLs may name any private host. */
  live: boolean;
  /** PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE: test-mode URLs may (on by default only on the embedded database). */
  test: boolean;
  /** PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST: reachable in either mode whatever the two switches say. */
  allowlist: PrivateAllowlist;
}

/** Nothing private, in either mode: the gateway's default. */
export const NO_PRIVATE_TARGETS: PrivateTargets = { live: false, test: false, allowlist: PrivateAllowlist.NONE };

/** The variable that lets a mode's webhooks reach any private address, for messages. */
export function privateTargetsSetting(mode: Mode): string {
  return mode === "live" ? "PAYGATE_WEBHOOK_ALLOW_PRIVATE" : "PAYGATE_TEST_WEBHOOK_ALLOW_PRIVATE";
}

/** What a refusal of a private destination adds: who may allow it, and how. */
export function privateTargetsHint(mode: Mode): string {
  return `private and local destinations are for the operator to allow (${privateTargetsSetting(mode)}=true, or the host in PAYGATE_WEBHOOK_PRIVATE_ALLOWLIST)`;
}

/** Lets every private address through: a mode whose switch is on. */
const ANY_PRIVATE = { allows: () => true } as const;

/**
 * The private addresses a delivery of `mode` may connect to: all of them, the allowlist's, or none
 * (undefined). The objects are the same from call to call, so the HTTP client keeps one pool for each.
 */
export function privateExceptions(targets: PrivateTargets, mode: Mode): { allows(hostname: string, address: string): boolean } | undefined {
  if (targets[mode]) return ANY_PRIVATE;
  return targets.allowlist.empty ? undefined : targets.allowlist;
}

/** An attempt's answer as it may be kept and shown: without the body when it came from a private address. */
export interface PrivateAnswer {
  responseBody: string | null;
  /** The answer may have come from a private address (the operator allowed one). */
  privateAddress: boolean;
}

/**
 * The body a merchant's users may see: none from a private address, which could be an internal
 * service's answer (a dashboard user would otherwise read our network through a webhook URL).
 */
export function shownResponseBody(answer: PrivateAnswer): string | null {
  return answer.privateAddress ? null : answer.responseBody;
}

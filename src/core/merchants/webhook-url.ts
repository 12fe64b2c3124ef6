// Where webhooks may be sent. Live deliveries come from our network, so a merchant URL must not
// turn them into requests against our own infrastructure (SSRF); test mode allows anything, for
// local development.
import { isIP } from "node:net";

export type WebhookMode = "test" | "live";

export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;

/** Validates a merchant's webhook URL when an operator sets it; returns it normalised. */
export function checkWebhookUrl(url: string, mode: WebhookMode, options: { allowPrivate: boolean }): UrlCheck {
  if (url.length > MAX_URL_LENGTH) return refuse(`webhook URLs must be at most ${MAX_URL_LENGTH} characters (got ${url.length})`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse("webhook URL is not a valid absolute URL; use a full URL such as https://example.com/webhooks");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return refuse(`webhook URLs must use http or https (got ${parsed.protocol})`);
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return refuse("webhook URLs must not contain a username or password; receivers authenticate deliveries by their signature");
  }
  // An empty fragment ("…/hook#") parses to hash "", so the raw text is checked too.
  if (parsed.hash !== "" || url.includes("#")) return refuse("webhook URLs must not contain a fragment (#…); remove it");
  const normalised = parsed.toString();
  if (normalised.length > MAX_URL_LENGTH) {
    return refuse(`webhook URLs must be at most ${MAX_URL_LENGTH} characters once normalised (got ${normalised.length})`);
  }
  if (mode === "live") {
    if (parsed.protocol !== "https:") return refuse(`live-mode webhook URLs must use https (got ${parsed.protocol})`);
    if (!options.allowPrivate) {
      const problem = privateHostProblem(parsed.hostname);
      if (problem) return refuse(`live-mode webhook URLs must point at a public host: ${problem}`);
    }
  }
  return { ok: true, url: normalised };
}

function refuse(reason: string): UrlCheck {
  return { ok: false, reason };
}

const INTERNAL_SUFFIXES = [".internal", ".local", ".home.arpa"];

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

// Not public: RFC 6890 special-purpose ranges that a webhook has no business reaching.
const PRIVATE_V4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8], // "this network", includes the unspecified address
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, where cloud metadata services live
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, includes broadcast
];

/** True when `ip` (IPv4 or IPv6 text, as DNS returns it) is a globally routable unicast address. */
export function isPublicAddress(ip: string): boolean {
  const version = isIP(ip);
  if (version === 4) return isPublicV4(v4Bytes(ip));
  if (version !== 6) return false;
  const bytes = v6Bytes(ip.replace(/%.*$/, ""));
  // Forms that carry an IPv4 address are judged by it: mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16).
  if (startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])) return isPublicV4(bytes.subarray(12));
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return isPublicV4(bytes.subarray(12));
  if (startsWith(bytes, [0x20, 0x02])) return isPublicV4(bytes.subarray(2, 6));
  // Only 2000::/3 is global unicast; that excludes ::, ::1, ULA fc00::/7, link-local fe80::/10 and multicast ff00::/8.
  const first = bytes[0] ?? 0;
  if ((first & 0xe0) !== 0x20) return false;
  // Inside it: IETF protocol assignments incl. Teredo (2001::/23), documentation (2001:db8::/32, 3fff::/20).
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && ((bytes[2] ?? 0) & 0xfe) === 0) return false;
  if (startsWith(bytes, [0x20, 0x01, 0x0d, 0xb8])) return false;
  if (bytes[0] === 0x3f && ((bytes[1] ?? 0) & 0xf0) === 0xf0) return false;
  return true;
}

function isPublicV4(bytes: Uint8Array): boolean {
  const value = v4Number(bytes);
  return !PRIVATE_V4.some(([network, bits]) => {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    return ((value & mask) >>> 0) === ((v4Number(v4Bytes(network)) & mask) >>> 0);
  });
}

function v4Number(bytes: Uint8Array): number {
  return (((bytes[0] ?? 0) << 24) | ((bytes[1] ?? 0) << 16) | ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0)) >>> 0;
}

/** Dotted quad to 4 bytes; callers have checked it with isIP. */
function v4Bytes(ip: string): Uint8Array {
  return Uint8Array.from(ip.split(".").map(Number));
}

/** IPv6 text to 16 bytes; callers have checked it with isIP, so only the shapes it accepts occur. */
function v6Bytes(ip: string): Uint8Array {
  let text = ip;
  const groups: number[] = [];
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let tail: number[] = [];
  if (quad?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = v4Bytes(quad[1]);
    tail = [(a << 8) | b, (c << 8) | d];
    text = text.slice(0, -quad[1].length);
    if (text.endsWith(":") && !text.endsWith("::")) text = text.slice(0, -1);
  }
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const gap = text.indexOf("::");
  if (gap === -1) {
    groups.push(...parse(text), ...tail);
  } else {
    const head = parse(text.slice(0, gap));
    const rest = [...parse(text.slice(gap + 2)), ...tail];
    groups.push(...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest);
  }
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return bytes;
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

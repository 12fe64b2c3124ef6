// Caps on what a client holds open (docs/security.md, "Connections and live updates"): TCP
// connections per address and slow requests at the socket; live-update streams (Server-Sent Events)
// and WebSockets per client address, per credential and in all, kept under the process's limit of
// open files so that probes, initialize and the database always have descriptors left. Counts are
// per process: every instance caps its own connections.
import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { createHash } from "node:crypto";
import { addressBucket } from "../core/rate-limits.ts";

export interface ConnectionLimits {
  /** Open TCP connections per client address (the socket's peer; a trusted proxy is not capped). 0: no cap. */
  perAddress: number;
  /** How long a client may take to send a request's headers, and the whole request (Node's headersTimeout and requestTimeout). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

export interface LiveLimits {
  /** Live connections (event streams and WebSockets) per client address. */
  perAddress: number;
  /** Live connections per credential (API key or client secret). */
  perCredential: number;
  /** Live connections of this process in all. */
  total: number;
  /** Subscriptions one WebSocket may hold at once. */
  subscriptionsPerSocket: number;
}

/**
 * How often Node checks headersTimeout and requestTimeout: its default, 30 s, would give a slow
 * client that much more. A server option only (http.createServer), read when it starts listening.
 */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;

/** Descriptors kept for everything else: the database pool, requests, files, the listening socket. */
const RESERVED_DESCRIPTORS = 128;

/** The process's soft limit on open files (Linux: /proc/self/limits), or null where it cannot be read. */
export function openFileLimit(limitsFile = "/proc/self/limits"): number | null {
  try {
    const line = readFileSync(limitsFile, "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    if (soft === "unlimited") return Number.POSITIVE_INFINITY;
    const n = Number(soft);
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

/** The default ceiling of live connections: half of what the file limit leaves after the reserve, at most 10,000. */
export function defaultLiveTotal(fileLimit: number | null): number {
  const limit = fileLimit ?? 1024;
  return Math.max(16, Math.min(10_000, Math.floor((limit - RESERVED_DESCRIPTORS) / 2)));
}

/** The default ceiling of TCP connections: what the file limit leaves after the reserve. */
export function defaultConnectionTotal(fileLimit: number | null): number {
  const limit = fileLimit ?? 1024;
  return Math.max(64, Math.min(100_000, limit - RESERVED_DESCRIPTORS));
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { perAddress: 256, headersTimeoutMs: 15_000, requestTimeoutMs: 60_000 };

export const DEFAULT_LIVE_LIMITS: LiveLimits = {
  perAddress: 32,
  perCredential: 100,
  total: defaultLiveTotal(openFileLimit()),
  subscriptionsPerSocket: 5,
};

/** The live event streams of GET /v1/events/stream (src/http/v1/events/stream.ts), capped on their own besides LiveLimits. */
export interface EventStreamLimits {
  /** Open event streams per secret key (PAYGATE_EVENT_STREAM_MAX_PER_KEY). */
  perKey: number;
  /** Open event streams of this instance in all (PAYGATE_EVENT_STREAM_MAX_TOTAL). */
  total: number;
  /** How often an idle stream sends a comment, so that proxies and clients see it alive (PAYGATE_EVENT_STREAM_HEARTBEAT_SECONDS). */
  heartbeatMs: number;
}

export const DEFAULT_EVENT_STREAM_LIMITS: EventStreamLimits = { perKey: 5, total: 1_000, heartbeatMs: 15_000 };

/** What a refused live connection is told: which cap, and when to try again. */
export interface LiveRefusal {
  cap: "address" | "credential" | "total";
  message: string;
  /** The WebSocket close reason (at most 123 bytes). */
  closeReason: string;
  retryAfterSeconds: number;
}

/** A concurrency cap frees up as soon as a connection closes: a short wait, not a window's end. */
const RETRY_AFTER_SECONDS = 10;
/** A refusal is logged once per address per minute, however many follow. */
const LOG_EVERY_MS = 60_000;

/**
 * Places held open, counted in all and per key of each kind (a client address, a credential), each
 * count under its cap: the one counter behind every cap on open connections (live connections here,
 * the event streams of GET /v1/events/stream). `acquire` takes a place or names the cap that refused
 * it; the release it returns gives the place back (once, however often it is called).
 */
export class CappedPlaces<Kind extends string> {
  private readonly byKey = new Map<Kind, Map<string, number>>();
  private open = 0;

  /** `caps`: the most places in all (`total`) and per key of each kind, checked in that order. */
  constructor(private readonly caps: Readonly<Record<"total" | Kind, number>>) {}

  /** Places held now (those counted in all). */
  get count(): number {
    return this.open;
  }

  /**
   * Takes a place for these keys, or names the first cap it would pass. `inTotal: false` counts only
   * the keys, for a connection already counted in all under another key.
   */
  acquire(keys: Partial<Record<Kind, string>>, inTotal = true): { release: () => void } | { cap: "total" | Kind; limit: number } {
    if (inTotal && this.open >= this.caps.total) return { cap: "total", limit: this.caps.total };
    const held = Object.entries(keys) as [Kind, string | undefined][];
    for (const [kind, key] of held) {
      if (key !== undefined && (this.byKey.get(kind)?.get(key) ?? 0) >= this.caps[kind]) return { cap: kind, limit: this.caps[kind] };
    }
    if (inTotal) this.open++;
    for (const [kind, key] of held) if (key !== undefined) increment(this.counts(kind), key);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        if (inTotal) this.open--;
        for (const [kind, key] of held) if (key !== undefined) decrement(this.counts(kind), key);
      },
    };
  }

  private counts(kind: Kind): Map<string, number> {
    const counts = this.byKey.get(kind) ?? new Map<string, number>();
    this.byKey.set(kind, counts);
    return counts;
  }
}

/**
 * The live connections of this process (event streams and WebSockets), counted by client address and
 * credential in one `CappedPlaces`, with the refusal's message, metric and log line.
 */
export class LiveConnections {
  private readonly places: CappedPlaces<"address" | "credential">;
  private readonly loggedAt = new Map<string, number>();

  constructor(
    readonly limits: LiveLimits,
    private readonly log: (line: string) => void = () => {},
    private readonly onRefused: (cap: LiveRefusal["cap"]) => void = () => {},
  ) {
    this.places = new CappedPlaces<"address" | "credential">({ total: limits.total, address: limits.perAddress, credential: limits.perCredential });
  }

  /** Live connections open now. */
  get count(): number {
    return this.places.count;
  }

  /** Takes a place for a connection of this address (and credential, when it has one), or refuses it. */
  acquire(address: string, credential: string | undefined): { release: () => void } | LiveRefusal {
    const addressKey = addressBucket(address);
    const credentialKey = credential === undefined ? undefined : credentialDigest(credential);
    return this.answer(addressKey, this.places.acquire({ address: addressKey, credential: credentialKey }));
  }

  /** Counts a credential on a connection already counted by address (a WebSocket names its credential after the upgrade). */
  acquireCredential(address: string, credential: string): { release: () => void } | LiveRefusal {
    return this.answer(addressBucket(address), this.places.acquire({ credential: credentialDigest(credential) }, false));
  }

  private answer(
    addressKey: string,
    place: { release: () => void } | { cap: LiveRefusal["cap"]; limit: number },
  ): { release: () => void } | LiveRefusal {
    if ("release" in place) return place;
    const refusal = refusalOf(place.cap, place.limit);
    this.onRefused(refusal.cap);
    this.logRefusal(addressKey, refusal);
    return refusal;
  }

  private logRefusal(addressKey: string, refusal: LiveRefusal): void {
    const now = Date.now();
    const last = this.loggedAt.get(addressKey);
    if (last !== undefined && now - last < LOG_EVERY_MS) return;
    if (this.loggedAt.size > 10_000) this.loggedAt.clear(); // bounded: many addresses at once are logged again, never held forever
    this.loggedAt.set(addressKey, now);
    this.log(`live connection refused for ${addressKey}: ${refusal.message} (logged once a minute per address)`);
  }
}

function refusalOf(cap: LiveRefusal["cap"], limit: number): LiveRefusal {
  const what = {
    address: `this address has ${limit} live connections open, the most allowed (PAYGATE_LIVE_MAX_PER_ADDRESS)`,
    credential: `this credential has ${limit} live connections open, the most allowed (PAYGATE_LIVE_MAX_PER_CREDENTIAL)`,
    total: `the service has ${limit} live connections open, the most it holds (PAYGATE_LIVE_MAX_CONNECTIONS)`,
  }[cap];
  return {
    cap,
    message: `Too many live connections: ${what}; close one, or retry after ${RETRY_AFTER_SECONDS} s`,
    closeReason: `Too many live connections for this ${cap === "total" ? "service" : cap}; retry after ${RETRY_AFTER_SECONDS} s`,
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  };
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 1) - 1;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
}

/** Counted by a digest, so the map holds no credential. */
export function credentialDigest(credential: string): string {
  return createHash("sha256").update(`paygate live\0${credential}`, "utf8").digest("base64url").slice(0, 22);
}

/**
 * The socket-level guards of an HTTP server: headers and whole requests must arrive in time (a
 * client dripping a header line every few seconds is cut), at most `perAddress` connections per
 * client address (a trusted proxy, which carries many clients, is not capped), and no more
 * connections in all than the open-file limit leaves room for.
 */
export function guardConnections(
  server: Server,
  limits: ConnectionLimits,
  options: { trustedProxy: (address: string) => boolean; log?: (line: string) => void; total?: number },
): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.maxConnections = options.total ?? defaultConnectionTotal(openFileLimit());
  if (limits.perAddress <= 0) return;
  const byAddress = new Map<string, number>();
  const loggedAt = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const peer = socket.remoteAddress;
    if (peer === undefined || options.trustedProxy(peer)) return;
    const key = addressBucket(peer);
    const open = byAddress.get(key) ?? 0;
    if (open >= limits.perAddress) {
      const now = Date.now();
      if (now - (loggedAt.get(key) ?? 0) >= LOG_EVERY_MS) {
        if (loggedAt.size > 10_000) loggedAt.clear();
        loggedAt.set(key, now);
        options.log?.(
          `connection refused for ${key}: ${limits.perAddress} connections open from this address, the most allowed (PAYGATE_MAX_CONNECTIONS_PER_ADDRESS; logged once a minute per address)`,
        );
      }
      socket.destroy();
      return;
    }
    byAddress.set(key, open + 1);
    socket.once("close", () => decrement(byAddress, key));
  });
}

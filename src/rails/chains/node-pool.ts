// The nodes of one network and mode, in the operator's order (own node first, providers after), and
// which of them may be read now. Every chain client (evm-rpc.ts, tron-rpc.ts through it, esplora.ts)
// sends each request through `use`, which reads from the first healthy node and fails over to the next.
//
// A node is set aside when
// - a request to it fails as a node fails (no answer in time, no connection, an HTTP error, an answer
//   that is not the protocol's): a JSON-RPC error of the node's own is an answer and passes through;
// - its probe (the client's: EVM eth_chainId and eth_blockNumber) fails, or finds it on another chain;
// - its head lags more than `maxLagBlocks` behind the highest head of the others.
// A node set aside is probed again after a back-off that doubles with each failure in a row (first,
// 2 × first, … up to max); the first probe that passes makes it healthy again. Probes of every node
// run at most once per `probeIntervalMs` (and when a back-off ends), before a request.
//
// With no healthy node, `use` rejects without asking any: with one node, with that node's own error
// (its message names the variable to fix); with several, with one error naming each node's.
import { ChainNodeError } from "./errors.ts";
import { hostOf } from "../http/outbound.ts";

/** Why a node is not read from now. */
export type NodeState = "healthy" | "unknown" | "failing" | "lagging" | "wrong_chain";

export interface PoolNode {
  /** 1-based, in the configured order. */
  index: number;
  url: URL;
  /** Names the node in messages, by host only (URLs carry credentials and API keys). */
  name: string;
}

/** One node's health, without its URL (the host only). */
export interface NodeHealth {
  index: number;
  host: string;
  state: NodeState;
  /** The head its last probe found, or null. */
  head: number | null;
  /** Failures in a row. */
  failures: number;
  /** When a node set aside is probed again. */
  retryAt: Date | null;
  /** The last failure's message, while set aside. */
  error: string | null;
}

export interface NodePoolOptions {
  /** Names the network in messages, e.g. "Sepolia JSON-RPC"; with one node, that node ("Sepolia JSON-RPC (host)"). */
  name: string;
  urls: readonly string[];
  /** Where the node is: its head block; a ChainNodeError (reason wrong_network on another chain) sets it aside. */
  probe(node: PoolNode): Promise<number>;
  /** A node further behind the highest head than this many blocks is set aside. */
  maxLagBlocks: number;
  /** How often healthy nodes are probed (heads compared). Default 10 s. */
  probeIntervalMs?: number;
  /** Back-off of a node set aside: the first wait and the longest. Default 1 s and 60 s. */
  backoffMs?: { first: number; max: number };
  now?: () => number;
}

interface Slot {
  node: PoolNode;
  state: NodeState;
  head: number | null;
  failures: number;
  retryAt: number;
  error: ChainNodeError | null;
}

/** Reasons that say the node, not the request, failed: the next node is asked. */
const NODE_FAULTS: ReadonlySet<string> = new Set(["timeout", "unreachable", "http_status", "rate_limited", "malformed", "wrong_network", "refused"]);

export function isNodeFault(error: unknown): error is ChainNodeError {
  return error instanceof ChainNodeError && NODE_FAULTS.has(error.reason);
}

const isUsable = (s: Slot) => s.state === "healthy" || s.state === "unknown";
const stateOf = (error: ChainNodeError): "wrong_chain" | "failing" => (error.reason === "wrong_network" ? "wrong_chain" : "failing");

export class NodePool {
  readonly name: string;
  private readonly slots: Slot[];
  private readonly options: Required<Omit<NodePoolOptions, "urls" | "name">>;
  private lastRound = Number.NEGATIVE_INFINITY;
  private round: Promise<void> | null = null;

  constructor(options: NodePoolOptions) {
    if (options.urls.length === 0) throw new RangeError(`${options.name}: a node pool needs at least one URL`);
    if (!(options.maxLagBlocks >= 0)) throw new RangeError("maxLagBlocks must not be negative");
    this.name = options.name;
    const several = options.urls.length > 1;
    this.slots = options.urls.map((url, i) => ({
      // One node is named as the client is; of several, each by its place and host.
      node: { index: i + 1, url: new URL(url), name: several ? `${options.name} node ${i + 1} (${hostOf(url)})` : options.name },
      state: "unknown",
      head: null,
      failures: 0,
      retryAt: 0,
      error: null,
    }));
    this.options = {
      probe: options.probe,
      maxLagBlocks: options.maxLagBlocks,
      probeIntervalMs: options.probeIntervalMs ?? 10_000,
      backoffMs: options.backoffMs ?? { first: 1_000, max: 60_000 },
      now: options.now ?? Date.now,
    };
  }

  get size(): number {
    return this.slots.length;
  }

  /** Each node's health, in the configured order. */
  health(): NodeHealth[] {
    return this.slots.map((s) => ({
      index: s.node.index,
      host: s.node.url.host,
      state: s.state,
      head: s.head,
      failures: s.failures,
      retryAt: s.state === "healthy" || s.state === "unknown" ? null : new Date(s.retryAt),
      error: s.state === "healthy" || s.state === "unknown" ? null : (s.error?.message ?? null),
    }));
  }

  /**
   * Whether a node may be read now. An unprobed node counts (it has not failed); when every node is set
   * aside and a back-off has ended, they are probed first, so a network whose nodes came back is offered
   * again even while no payment on it is watched.
   */
  async available(): Promise<boolean> {
    // A list of one keeps what a single node always did: initiate goes on and the watcher says what fails.
    if (this.slots.length === 1 || this.slots.some(isUsable)) return true;
    const now = this.options.now();
    if (!this.slots.some((s) => s.retryAt <= now)) return false;
    await this.refresh(true);
    return this.slots.some(isUsable);
  }

  /** Probes now (the start-up check): the first healthy node, or the error `use` would give. */
  async check(): Promise<PoolNode> {
    await this.refresh(true);
    const slot = this.slots.find((s) => s.state === "healthy");
    if (slot === undefined) throw this.noneHealthy();
    return slot.node;
  }

  /**
   * `read` on the first healthy node; on a node's fault, that node is set aside and the next is read.
   * A single node is always read (there is no other to turn to): its failures are only recorded.
   */
  async use<T>(read: (node: PoolNode) => Promise<T>): Promise<T> {
    const [only] = this.slots;
    if (this.slots.length === 1 && only !== undefined) {
      try {
        const result = await read(only.node);
        this.recovered(only);
        return result;
      } catch (error) {
        if (isNodeFault(error)) this.setAside(only, stateOf(error), error);
        throw error;
      }
    }
    await this.refresh(false);
    for (const slot of this.slots) {
      if (slot.state !== "healthy") continue;
      try {
        return await read(slot.node);
      } catch (error) {
        if (!isNodeFault(error)) throw error;
        this.setAside(slot, stateOf(error), error);
      }
    }
    throw this.noneHealthy();
  }

  private refresh(force: boolean): Promise<void> {
    const now = this.options.now();
    const due =
      force ||
      now - this.lastRound >= this.options.probeIntervalMs ||
      this.slots.some((s) => s.state === "unknown" || (s.state !== "healthy" && s.retryAt <= now));
    if (!due) return Promise.resolve();
    this.round ??= this.probeAll().finally(() => {
      this.round = null;
    });
    return this.round;
  }

  private async probeAll(): Promise<void> {
    const now = this.options.now();
    this.lastRound = now;
    const probed = this.slots.filter((s) => s.state === "healthy" || s.state === "unknown" || s.retryAt <= now);
    await Promise.all(
      probed.map(async (slot) => {
        try {
          slot.head = await this.options.probe(slot.node);
          slot.state = "healthy";
        } catch (error) {
          const failure = error instanceof ChainNodeError ? error : new ChainNodeError(`${slot.node.name}: ${String(error)}`, { cause: error });
          this.setAside(slot, stateOf(failure), failure);
        }
      }),
    );
    // Lag: against the highest head any node on the right chain answered with lately.
    const heads = this.slots.filter((s) => s.state === "healthy" || s.state === "lagging").map((s) => s.head ?? 0);
    const top = Math.max(...heads);
    for (const slot of probed) {
      if (slot.state !== "healthy" || slot.head === null) continue;
      if (top - slot.head > this.options.maxLagBlocks) {
        const behind = top - slot.head;
        this.setAside(
          slot,
          "lagging",
          new ChainNodeError(
            `${slot.node.name}: its head ${slot.head} is ${behind} blocks behind the others' ${top} (more than ${this.options.maxLagBlocks})`,
            {
              reason: "lagging",
            },
          ),
        );
      } else this.recovered(slot);
    }
  }

  private recovered(slot: Slot): void {
    slot.state = "healthy";
    slot.failures = 0;
    slot.error = null;
  }

  private setAside(slot: Slot, state: Exclude<NodeState, "healthy" | "unknown">, error: ChainNodeError): void {
    const { first, max } = this.options.backoffMs;
    // Each failure in a row doubles the wait before the node is probed again.
    slot.failures += 1;
    slot.state = state;
    slot.error = error;
    slot.retryAt = this.options.now() + Math.min(max, first * 2 ** Math.min(30, slot.failures - 1));
  }

  private noneHealthy(): ChainNodeError {
    const [only] = this.slots;
    if (this.slots.length === 1 && only?.error) return only.error;
    const each = this.slots.map((s) => s.error?.message ?? `${s.node.name}: not answered yet`).join("; ");
    const reason = this.slots[0]?.error?.reason ?? "other";
    return new ChainNodeError(`${this.name}: no node can be read now (${each})`, { reason });
  }
}

// What the service says when it starts listening: the address it is really bound to, and whether
// other machines can reach it.
import type { AddressInfo } from "node:net";

const WILDCARDS = new Set(["0.0.0.0", "::", "::0"]);
const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

export function listeningLine(address: AddressInfo): string {
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const bound = `${host}:${address.port}`;
  if (WILDCARDS.has(address.address)) {
    return `paygate listening on ${bound} (every interface: reachable from other machines; HOST=127.0.0.1 keeps it on this one). Open http://127.0.0.1:${address.port}`;
  }
  if (LOOPBACK.test(address.address)) return `paygate listening on ${bound} (this machine only). Open http://${bound}`;
  return `paygate listening on ${bound} (reachable at that address from other machines). Open http://${bound}`;
}

// What the service says when it starts listening: the address it is really bound to, whether other
// machines can reach it, and where its dashboard opens (GET / leads there too).
import type { AddressInfo } from "node:net";
import { DASHBOARD_PATH } from "./front-door.ts";

const WILDCARDS = new Set(["0.0.0.0", "::", "::0"]);
const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

export function listeningLine(address: AddressInfo): string {
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const bound = `${host}:${address.port}`;
  if (WILDCARDS.has(address.address)) {
    return `paygate listening on ${bound} (every interface: reachable from other machines; HOST=127.0.0.1 keeps it on this one). Dashboard: http://127.0.0.1:${address.port}${DASHBOARD_PATH}`;
  }
  if (LOOPBACK.test(address.address)) return `paygate listening on ${bound} (this machine only). Dashboard: http://${bound}${DASHBOARD_PATH}`;
  return `paygate listening on ${bound} (reachable at that address from other machines). Dashboard: http://${bound}${DASHBOARD_PATH}`;
}

/** Why the service could not listen, and what to change (a taken port, an address not on this machine, a privileged port). */
export function cannotListenLine(error: Error, host: string, port: number): string {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  if (code === "EADDRINUSE") {
    return `paygate cannot listen on ${where}: the port is already in use (EADDRINUSE). Stop what listens there, or set PORT to a free port.`;
  }
  if (code === "EADDRNOTAVAIL") {
    return `paygate cannot listen on ${where}: no interface of this machine has that address (EADDRNOTAVAIL). Set HOST to one of its addresses, 127.0.0.1 or 0.0.0.0.`;
  }
  if (code === "EACCES") {
    return `paygate cannot listen on ${where}: not allowed (EACCES; ports below 1024 need privileges). Set PORT to 1024 or above.`;
  }
  return `paygate cannot listen on ${where}: ${error.message}`;
}

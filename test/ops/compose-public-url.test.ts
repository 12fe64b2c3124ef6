// compose.yaml's PAYGATE_PUBLIC_URL: every checkout_url and sign-in link a container prints is built on it, so
// it must name an address the host publishes (issue 28). Read as a file: no container runtime here.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parsePublicUrl } from "../../src/config.ts";

/** A published port: `HOST_IP:HOST:CONTAINER`, `HOST:CONTAINER` (every interface), or the long form. */
interface Published {
  hostIp: string;
  port: number;
}

const LongPort = z.object({ published: z.union([z.string(), z.number()]), host_ip: z.string().optional() });
const Service = z.object({
  environment: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
  ports: z.array(z.union([z.string(), LongPort])).optional(),
});
const Compose = z.object({ services: z.record(z.string(), Service) });

function publishedPorts(ports: z.infer<typeof Service>["ports"]): Published[] {
  return (ports ?? []).flatMap((entry): Published[] => {
    if (typeof entry !== "string") return [{ hostIp: entry.host_ip ?? "0.0.0.0", port: Number(entry.published) }];
    const parts = entry.replace(/\/(tcp|udp)$/, "").split(":");
    if (parts.length === 3) return [{ hostIp: parts[0]!, port: Number(parts[1]) }];
    if (parts.length === 2) return [{ hostIp: "0.0.0.0", port: Number(parts[0]) }];
    return []; // a container port alone is published on a random host port: nothing a URL can name
  });
}

/** Whether `url` reaches one of `published`: its port, and its host when the port is bound to one address. */
function reaches(url: string, published: Published[]): boolean {
  const { hostname, port, protocol } = new URL(url);
  const number = Number(port || (protocol === "https:" ? 443 : 80));
  const host = hostname === "localhost" ? "127.0.0.1" : hostname;
  return published.some((p) => p.port === number && (p.hostIp === "0.0.0.0" || p.hostIp === host));
}

const compose = Compose.parse(parse(readFileSync("compose.yaml", "utf8"), { merge: true }));
const services = Object.entries(compose.services);
const withUrl = services.filter(([, s]) => s.environment?.PAYGATE_PUBLIC_URL !== undefined);

describe("compose.yaml's PAYGATE_PUBLIC_URL", () => {
  it("is set on every paygate service (the ones with a DATABASE_URL), as a valid public URL", () => {
    const paygate = services.filter(([, s]) => s.environment?.DATABASE_URL !== undefined).map(([name]) => name);
    expect(paygate.length).toBeGreaterThanOrEqual(3);
    expect(withUrl.map(([name]) => name).sort()).toEqual(paygate.sort());
    for (const [name, service] of withUrl) {
      expect(parsePublicUrl(String(service.environment?.PAYGATE_PUBLIC_URL)), name).toHaveProperty("url");
    }
  });

  it("names a port the service it configures publishes; a service without ports (the worker) names another's", () => {
    const everyPublished = services.flatMap(([, s]) => publishedPorts(s.ports));
    for (const [name, service] of withUrl) {
      const url = String(service.environment?.PAYGATE_PUBLIC_URL);
      const own = publishedPorts(service.ports);
      expect(reaches(url, own.length > 0 ? own : everyPublished), `${name}: ${url}`).toBe(true);
    }
  });

  it("tells a URL that reaches a published port from one that does not (the check can fail)", () => {
    const published = publishedPorts(["127.0.0.1:3001:3000", "8080:3000", { published: 9000, host_ip: "10.0.0.5" }, "3000"]);
    expect(published).toEqual([
      { hostIp: "127.0.0.1", port: 3001 },
      { hostIp: "0.0.0.0", port: 8080 },
      { hostIp: "10.0.0.5", port: 9000 },
    ]);
    expect(reaches("http://127.0.0.1:3001", published)).toBe(true);
    expect(reaches("http://localhost:3001", published)).toBe(true);
    expect(reaches("http://127.0.0.1:3000", published)).toBe(false); // the container's port, not published
    expect(reaches("http://192.0.2.1:3001", published)).toBe(false); // bound to 127.0.0.1 only
    expect(reaches("https://pay.example.com:8080", published)).toBe(true);
    expect(reaches("http://10.0.0.5:9000", published)).toBe(true);
  });
});

// HTTP requests as a hostile or broken client sends them, which fetch will not: repeated headers,
// any path bytes, any Content-Type, Content-Encoding and body.
import { request } from "node:http";

export interface RawRequest {
  method?: string;
  path: string;
  /** An array value sends the header once per element. */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: any;
}

export function rawRequest(baseUrl: string, { method = "GET", path, headers = {}, body }: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on("error", reject);
    if (body !== undefined) req.setHeader("content-length", Buffer.byteLength(body));
    req.end(body);
  });
}

// Reads a QR data URL back, as a customer's wallet app would.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import jsQRModule from "jsqr";
import { PNG } from "pngjs";

const jsQR = jsQRModule.default;
const PREFIX = "data:image/png;base64,";

export function decodeQr(dataUrl: string): { text: string; width: number; height: number } {
  if (!dataUrl.startsWith(PREFIX)) throw new Error(`not a PNG data URL: ${dataUrl.slice(0, 30)}…`);
  const png = PNG.sync.read(Buffer.from(dataUrl.slice(PREFIX.length), "base64"));
  const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  if (!code) throw new Error("no QR code found in the image");
  return { text: code.data, width: png.width, height: png.height };
}

/**
 * The same image read by a second, unrelated decoder: ZBar's `zbarimg` (Debian's zbar-tools, which
 * .ci/run installs), so a code is not only readable by the decoder its tests were written against.
 */
export function decodeQrWithZbar(dataUrl: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "paygate-qr-"));
  try {
    const file = path.join(dir, "code.png");
    writeFileSync(file, Buffer.from(dataUrl.slice(PREFIX.length), "base64"));
    try {
      return execFileSync("zbarimg", ["--raw", "-q", "-Sdisable", "-Sqrcode.enable", file], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }).replace(/\n$/, "");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new Error("zbarimg is missing: apt-get install -y zbar-tools (.ci/run does)");
      throw error;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

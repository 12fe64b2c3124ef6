// Reads a QR data URL back, as a customer's wallet app would.
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

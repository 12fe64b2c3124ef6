// The QR image decodes back to the text it was made from.
import { PNG } from "pngjs";
import QRCode from "qrcode";
import { describe, it, expect } from "vitest";
import { PngQrRenderer } from "../../src/rails/qr/index.ts";
import { decodeQr as decode } from "../support/qr.ts";

describe("PngQrRenderer", () => {
  const renderer = new PngQrRenderer();

  it("round-trips payment URIs of every kind", async () => {
    for (const uri of [
      "bitcoin:bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu?amount=0.001234",
      "litecoin:tltc1qyh8nfgf7snx9fttm8wedxl7ml6dhq3lypal5v4?amount=12.3456789",
      "ethereum:0x9858EfFD232B4033E47d90003D41EC34EcaEda94@11155111?value=1234567890000000000",
      "ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x9858EfFD232B4033E47d90003D41EC34EcaEda94&uint256=98765432109876",
    ]) {
      const { text, width, height } = decode(await renderer.dataUrl(uri));
      expect(text).toBe(uri);
      expect(width).toBe(height);
      expect(width).toBeGreaterThanOrEqual(150);
      expect(width).toBeLessThanOrEqual(600);
    }
  });

  it("draws 5-pixel modules inside a 4-module quiet zone by default", async () => {
    const { width } = decode(await renderer.dataUrl("bitcoin:bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu?amount=1"));
    const modules = width / 5 - 8;
    expect(Number.isInteger(modules)).toBe(true);
    expect((modules - 17) % 4).toBe(0); // 17 + 4 × version
  });

  it("draws every pixel of the code's modules and quiet zone exactly (error correction would hide a few wrong ones)", async () => {
    const uri = "ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x9858EfFD232B4033E47d90003D41EC34EcaEda94&uint256=1";
    const { modules } = QRCode.create(uri, { errorCorrectionLevel: "M" });
    const png = PNG.sync.read(Buffer.from((await renderer.dataUrl(uri)).slice("data:image/png;base64,".length), "base64"));
    const [scale, margin] = [5, 4];
    expect(png.width).toBe((modules.size + 2 * margin) * scale);
    let wrong = 0;
    for (let y = 0; y < png.height; y++) {
      for (let x = 0; x < png.width; x++) {
        const [row, column] = [Math.floor(y / scale) - margin, Math.floor(x / scale) - margin];
        const inside = row >= 0 && row < modules.size && column >= 0 && column < modules.size;
        const dark = inside && modules.get(row, column) === 1;
        if (png.data[(y * png.width + x) * 4] !== (dark ? 0 : 255)) wrong++;
      }
    }
    expect(wrong).toBe(0);
  });

  it("honours scale and margin", async () => {
    const small = new PngQrRenderer({ scale: 3, margin: 2 });
    const { text, width } = decode(await small.dataUrl("hello"));
    expect(text).toBe("hello");
    expect(width).toBe((21 + 4) * 3); // version 1 at level M
  });

  it("rejects empty text", async () => {
    await expect(renderer.dataUrl("")).rejects.toThrow();
    await expect(renderer.dataUrl("")).rejects.toThrow();
  });

  it("serves a repeated text from its cache, with the same image as an uncached renderer", async () => {
    const uri = "bitcoin:bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g?amount=0.5";
    const first = await renderer.dataUrl(uri);
    expect(await renderer.dataUrl(uri)).toBe(first);
    const uncached = new PngQrRenderer({ cacheSize: 0 });
    expect(await uncached.dataUrl(uri)).toBe(first);
    const tiny = new PngQrRenderer({ cacheSize: 1 });
    expect(decode(await tiny.dataUrl("a")).text).toBe("a");
    expect(decode(await tiny.dataUrl("b")).text).toBe("b");
    expect(decode(await tiny.dataUrl("a")).text).toBe("a");
  });
});

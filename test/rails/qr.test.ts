// The QR image decodes back to the text it was made from.
import { PNG } from "pngjs";
import QRCode from "qrcode";
import { describe, it, expect } from "vitest";
import { randomBytes } from "node:crypto";
import { PngQrRenderer, QR_MASK_PATTERN, qrCode, qrSegments } from "../../src/rails/qr/index.ts";
import { decodeQr as decode, decodeQrWithZbar } from "../support/qr.ts";

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
    const { modules } = qrCode(uri);
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

  it("reads back with two unrelated decoders (jsQR and ZBar) for payment URIs of every coin, amount and chain", async () => {
    const hex = () => `0x${randomBytes(20).toString("hex")}`;
    const uris: string[] = [];
    for (let i = 0; i < 8; i++) {
      const amount = (Number(randomBytes(4).readUInt32BE(0)) / 1e6).toFixed(8);
      uris.push(
        `bitcoin:bc1q${randomBytes(19).toString("hex")}?amount=${amount}`,
        `litecoin:tltc1q${randomBytes(19).toString("hex")}?amount=${amount}`,
        `ethereum:${hex()}@11155111?value=${randomBytes(8).readBigUInt64BE(0)}`,
        `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${hex()}&uint256=${randomBytes(6).readUIntBE(0, 6)}`,
      );
    }
    for (const uri of uris) {
      const image = await renderer.dataUrl(uri);
      expect(decode(image).text, uri).toBe(uri);
      expect(decodeQrWithZbar(image), uri).toBe(uri);
    }
  });

  it("draws the fixed mask, in the version qrcode's own search would choose for the URIs the API hands out", () => {
    for (const uri of [
      "bitcoin:tb1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu?amount=0.00153847",
      "litecoin:tltc1qyh8nfgf7snx9fttm8wedxl7ml6dhq3lypal5v4?amount=12.3456789",
      "ethereum:0x9858EfFD232B4033E47d90003D41EC34EcaEda94@11155111?value=1234567890000000000",
      "ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x9858EfFD232B4033E47d90003D41EC34EcaEda94&uint256=98765432109876",
    ]) {
      const code = qrCode(uri);
      expect(code.maskPattern, uri).toBe(QR_MASK_PATTERN);
      expect(code.version, uri).toBe(QRCode.create(uri, { errorCorrectionLevel: "M" }).version);
    }
  });

  it("encodes long digit runs as numeric segments and the rest as bytes, in order", () => {
    const segments = qrSegments("ethereum:0xab12@11155111?value=1234500000");
    expect(segments.map((s) => [s.mode, Buffer.isBuffer(s.data) ? s.data.toString("utf8") : s.data])).toEqual([
      ["byte", "ethereum:0xab12@"],
      ["numeric", "11155111"],
      ["byte", "?value="],
      ["numeric", "1234500000"],
    ]);
    expect(qrSegments("bitcoin:bc1q?amount=0.5").map((s) => s.mode)).toEqual(["byte"]);
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

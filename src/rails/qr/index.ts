// QR codes of payment URIs as PNG data URLs.
import { LRUCache } from "lru-cache";
import QRCode from "qrcode";
import type { QrRenderer } from "../../core/ports.ts";

export interface PngQrRendererOptions {
  /**
   * Pixels per module. Default 5: payment URIs (QR versions 4–8) come out at 205–285 px. Rendering
   * time grows with the pixel count (the PNG is built synchronously), so bigger is slower.
   */
  scale?: number;
  /** Quiet zone in modules. Default 4, what the QR specification asks for. */
  margin?: number;
  /** How many rendered images to keep, keyed by text; 0 turns the cache off. Default 256. */
  cacheSize?: number;
}

export class PngQrRenderer implements QrRenderer {
  private readonly scale: number;
  private readonly margin: number;
  /** text → data URL, least recently used out first: a payment page polled again reuses its image. */
  private readonly cache: LRUCache<string, Promise<string>> | null;

  constructor(options: PngQrRendererOptions = {}) {
    this.scale = options.scale ?? 5;
    this.margin = options.margin ?? 4;
    const size = Math.max(0, Math.floor(options.cacheSize ?? 256));
    this.cache = size > 0 ? new LRUCache({ max: size }) : null;
  }

  dataUrl(text: string): Promise<string> {
    const cached = this.cache?.get(text);
    if (cached) return cached;
    const rendering = QRCode.toDataURL(text, {
      type: "image/png",
      // M restores ~15% damage; higher levels make denser codes for long EIP-681 URIs.
      errorCorrectionLevel: "M",
      margin: this.margin,
      scale: this.scale,
    });
    if (this.cache) {
      const cache = this.cache;
      cache.set(text, rendering);
      // A failed rendering is not kept.
      rendering.catch(() => {
        if (cache.peek(text) === rendering) cache.delete(text);
      });
    }
    return rendering;
  }
}

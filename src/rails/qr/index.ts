// QR codes of payment URIs as PNG data URLs.
import { crc32, deflateSync } from "node:zlib";
import { LRUCache } from "lru-cache";
import QRCode from "qrcode";
import type { QrRenderer } from "../../core/ports.ts";

export interface PngQrRendererOptions {
  /** Pixels per module. Default 5: payment URIs (QR versions 4–8) come out at 205–285 px. */
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

  dataUrl(text: string, options: { secret?: boolean } = {}): Promise<string> {
    // A secret (a second factor's otpauth:// URI) is drawn each time and forgotten.
    if (options.secret) return new Promise((resolve) => resolve(this.render(text)));
    const cached = this.cache?.get(text);
    if (cached) return cached;
    let rendering: Promise<string>;
    try {
      rendering = Promise.resolve(this.render(text));
    } catch (error) {
      // A failed rendering is not kept.
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    this.cache?.set(text, rendering);
    return rendering;
  }

  /**
   * The qrcode package makes the module matrix; the PNG is written here, one bit per pixel, because
   * the package's own PNG output (RGBA through pngjs) cost ~8 ms of CPU per code, most of initiate's
   * time (docs/benchmarks.md). A 1-bit grayscale PNG of the same pixels takes a fraction of that.
   */
  private render(text: string): string {
    const { modules } = qrCode(text);
    return `data:image/png;base64,${oneBitPng(modules.size, modules.data, this.scale, this.margin).toString("base64")}`;
  }
}

/**
 * The mask every code gets. qrcode would otherwise draw all eight and score each (ISO 18004's
 * penalty rules), most of a code's cost; any mask decodes, and over 1,600 payment URIs of every
 * coin its search picked this one (j mod 3 = 0) 88 % of the time.
 */
export const QR_MASK_PATTERN = 2;

/** Runs of digits long enough for a numeric segment (3⅓ bits a digit) to pay for its header against bytes (8). */
const DIGIT_RUNS = /\d{6,}/g;

/**
 * The segments of a payment URI, made directly instead of by qrcode's search for the optimal split
 * (a third of a code's cost for a long EIP-681 URI): its long digit runs (amounts in base units,
 * chain ids) numeric, the rest one byte segment each. Over 1,200 sampled URIs of every coin this
 * gave qrcode's version but for 9 (one version more); bytes alone gave a larger one for 45 %.
 */
export function qrSegments(text: string): QRCode.QRCodeSegment[] {
  const segments: QRCode.QRCodeSegment[] = [];
  let last = 0;
  for (const run of text.matchAll(DIGIT_RUNS)) {
    if (run.index > last) segments.push({ data: Buffer.from(text.slice(last, run.index), "utf8"), mode: "byte" });
    segments.push({ data: run[0], mode: "numeric" });
    last = run.index + run[0].length;
  }
  if (last < text.length) segments.push({ data: Buffer.from(text.slice(last), "utf8"), mode: "byte" });
  return segments;
}

/**
 * The code of a payment URI: the segments above, the fixed mask, and the smallest version that holds
 * them (qrcode's choice). Level M restores ~15% damage; higher levels make denser codes for long
 * EIP-681 URIs.
 */
export function qrCode(text: string): QRCode.QRCode {
  if (text === "") throw new Error("No input text: a QR code needs something to encode");
  return QRCode.create(qrSegments(text), { errorCorrectionLevel: "M", maskPattern: QR_MASK_PATTERN });
}

/**
 * A square 1-bit grayscale PNG of `size`² modules (`dark`: qrcode's row-major matrix, 1 = dark), each
 * `scale` px, inside a `margin`-module white border. Scanlines are written into one buffer and the
 * file into another: one allocation each instead of one a scanline and three a chunk (issue 47).
 */
function oneBitPng(size: number, dark: Uint8Array, scale: number, margin: number): Buffer {
  const width = (size + 2 * margin) * scale;
  const stride = 1 + Math.ceil(width / 8);
  const scanlines = Buffer.alloc(stride * width);
  let line = 0;
  for (let moduleRow = -margin; moduleRow < size + margin; moduleRow++) {
    // A module row's first scanline: filter type 0, then the bits, 1 = white (grayscale), most significant bit first.
    scanlines.fill(0xff, line + 1, line + stride);
    if (moduleRow >= 0 && moduleRow < size) {
      for (let column = 0; column < size; column++) {
        if (dark[moduleRow * size + column] !== 1) continue;
        for (let x = (column + margin) * scale, end = x + scale; x < end; x++) {
          const at = line + 1 + (x >> 3);
          scanlines[at] = (scanlines[at] ?? 0xff) & ~(0x80 >> (x & 7));
        }
      }
    }
    line += stride;
    // Its repeated scanlines use the Up filter (type 2): all zero bytes, which deflate in half the
    // time of the repeated bits and come out smaller (docs/benchmarks.md, issue 47).
    for (let i = 1; i < scale; i++, line += stride) scanlines[line] = 2;
  }
  const idat = deflateSync(scanlines);
  const png = Buffer.allocUnsafe(PNG_SIGNATURE.length + 3 * CHUNK_OVERHEAD + IHDR_LENGTH + idat.length);
  PNG_SIGNATURE.copy(png, 0);
  let at = chunk(png, PNG_SIGNATURE.length, "IHDR", IHDR_LENGTH, (data) => {
    png.writeUInt32BE(width, data);
    png.writeUInt32BE(width, data + 4);
    png.set([1, 0, 0, 0, 0], data + 8); // bit depth 1, grayscale, deflate, adaptive filtering, no interlace
  });
  at = chunk(png, at, "IDAT", idat.length, (data) => idat.copy(png, data));
  chunk(png, at, "IEND", 0, () => undefined);
  return png;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** A chunk's length, type and CRC. */
const CHUNK_OVERHEAD = 12;
const IHDR_LENGTH = 13;

/** Writes a chunk at `at` (its data by `write`, given where the data starts); returns where the next one starts. */
function chunk(png: Buffer, at: number, type: string, length: number, write: (data: number) => void): number {
  png.writeUInt32BE(length, at);
  png.write(type, at + 4, "ascii");
  write(at + 8);
  png.writeUInt32BE(crc32(png.subarray(at + 4, at + 8 + length)), at + 8 + length);
  return at + CHUNK_OVERHEAD + length;
}

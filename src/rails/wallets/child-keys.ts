// BIP32's public child derivation (CKDpub) for receive addresses: the one elliptic-curve step an
// initiate takes, parent point + tweak·G. libsecp256k1 (Bitcoin Core's library, through the
// prebuilt binding the `secp256k1` package ships for Linux x64, macOS arm64 and Windows x64) does it
// in about a fifth of the CPU of @noble/curves' windowed table (docs/benchmarks.md). Where no prebuilt
// binding loads, @noble/curves does it; both give the bytes HDKey.deriveChild gives.
import { createHmac } from "node:crypto";
import { createRequire } from "node:module";
import type { HDKey } from "@scure/bip32";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToNumberBE, numberToBytesBE } from "@noble/curves/utils.js";

/** What the binding offers that is used here: it throws when the tweak is not below the order or the sum is the identity. */
interface NativeCurve {
  publicKeyTweakAdd(publicKey: Uint8Array, tweak: Uint8Array, compressed: boolean): Uint8Array;
}

/** The binding alone, not the package's entry, which would fall back to the much slower `elliptic`. */
function loadNative(): NativeCurve | undefined {
  try {
    return createRequire(import.meta.url)("secp256k1/bindings") as NativeCurve;
  } catch {
    return undefined;
  }
}

/** Adds tweak·G to a SEC1 public key; undefined when BIP32 says the index has no key (left to HDKey). */
export type TweakAdd = (parent: Uint8Array, tweak: Uint8Array, compressed: boolean) => Uint8Array | undefined;

const native = loadNative();

export const nativeTweakAdd: TweakAdd | undefined = native
  ? (parent, tweak, compressed) => {
      try {
        return native.publicKeyTweakAdd(parent, tweak, compressed);
      } catch {
        return undefined;
      }
    }
  : undefined;

type CurvePoint = InstanceType<typeof secp256k1.Point>;

/** Each parent key decoded once (decoding takes a square root), keyed by the bytes childPublicKey keeps for its chain node. */
const parentPoints = new WeakMap<Uint8Array, CurvePoint>();

/**
 * A copy of the base point with a table of 8-bit windows (~3 MB, ~60 ms to build, once per process,
 * at the first derivation): ~30 % less CPU than Point.BASE's 6-bit table. A copy, so that
 * Point.BASE, which every other user of the library shares (@scure/bip32 among them), keeps its own.
 */
let windowedBase: CurvePoint | undefined;
function base(): CurvePoint {
  windowedBase ??= secp256k1.Point.fromAffine(secp256k1.Point.BASE.toAffine()).precompute(8, false);
  return windowedBase;
}

/** The same step in @noble/curves, in variable time: every input is public (the merchant's account key). */
export const nobleTweakAdd: TweakAdd = (parent, tweak, compressed) => {
  const { Point } = secp256k1;
  let parentPoint = parentPoints.get(parent);
  if (!parentPoint) {
    parentPoint = Point.fromBytes(parent);
    parentPoints.set(parent, parentPoint);
  }
  const scalar = bytesToNumberBE(tweak);
  if (scalar >= Point.Fn.ORDER) return undefined;
  const child = scalar === 0n ? parentPoint : parentPoint.add(base().multiplyUnsafe(scalar));
  if (child.is0()) return undefined;
  return encodePoint(child, compressed);
};

/** The step this process uses. */
export const tweakAdd: TweakAdd = nativeTweakAdd ?? nobleTweakAdd;

/**
 * SEC1 encoding (compressed: 02/03 and x; else 04, x and y) with one field inversion: the
 * library's toBytes checks the point first, which takes a second. A sum made above is on the curve.
 */
function encodePoint(point: CurvePoint, compressed: boolean): Uint8Array {
  const { x, y } = point.toAffine();
  const out = new Uint8Array(compressed ? 33 : 65);
  out.set(numberToBytesBE(x, 32), 1);
  if (compressed) {
    out[0] = (y & 1n) === 1n ? 0x03 : 0x02;
  } else {
    out[0] = 0x04;
    out.set(numberToBytesBE(y, 32), 33);
  }
  return out;
}

/**
 * A chain node's key and chain code, copied once: HDKey's getters copy them on every read, and the
 * same bytes each time let nobleTweakAdd find the point it decoded.
 */
const parents = new WeakMap<HDKey, { publicKey: Uint8Array; chainCode: Uint8Array }>();
function parentOf(chain: HDKey): { publicKey: Uint8Array; chainCode: Uint8Array } {
  let parent = parents.get(chain);
  if (!parent) {
    const { publicKey, chainCode } = chain;
    if (!publicKey || !chainCode) throw new Error("the chain node has no public key or chain code");
    parent = { publicKey, chainCode };
    parents.set(chain, parent);
  }
  return parent;
}

/**
 * The SEC1 public key at non-hardened `index` below `chain`, as HDKey.deriveChild computes it, for
 * the public key only. The vanishingly rare index that BIP32 skips is left to HDKey, which knows how.
 */
export function childPublicKey(chain: HDKey, index: number, compressed: boolean, add: TweakAdd = tweakAdd): Uint8Array {
  const { publicKey, chainCode } = parentOf(chain);
  const data = new Uint8Array(37);
  data.set(publicKey, 0);
  new DataView(data.buffer).setUint32(33, index, false);
  const tweak = createHmac("sha512", chainCode).update(data).digest().subarray(0, 32);
  const child = add(publicKey, tweak, compressed);
  if (child) return child;
  const derived = chain.deriveChild(index).publicKey;
  if (!derived) throw new Error("derived key has no public key");
  return compressed ? derived : secp256k1.Point.fromBytes(derived).toBytes(false);
}

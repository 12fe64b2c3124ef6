// BIP32's public child step for receive addresses: libsecp256k1's binding and @noble/curves give
// HDKey.deriveChild's keys, both refuse the tweaks BIP32 skips, and a skipped index is left to HDKey.
import { randomBytes } from "node:crypto";
import { HDKey } from "@scure/bip32";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { numberToBytesBE } from "@noble/curves/utils.js";
import { describe, expect, it } from "vitest";
import { childPublicKey, nativeTweakAdd, nobleTweakAdd, type TweakAdd, tweakAdd } from "../../src/rails/wallets/child-keys.ts";

const ORDER = secp256k1.Point.Fn.ORDER;
const hex = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString("hex") : "none");

describe("the child-key libraries", () => {
  it("uses libsecp256k1's binding where the package ships a prebuilt one, else @noble/curves", () => {
    const prebuilt = ["linux-x64", "darwin-arm64", "win32-x64"].includes(`${process.platform}-${process.arch}`);
    expect(nativeTweakAdd !== undefined).toBe(prebuilt);
    expect(tweakAdd).toBe(prebuilt ? nativeTweakAdd : nobleTweakAdd);
  });

  const libraries: Array<[string, TweakAdd]> = [["@noble/curves", nobleTweakAdd]];
  if (nativeTweakAdd) libraries.push(["libsecp256k1", nativeTweakAdd]);

  for (const [name, add] of libraries) {
    describe(name, () => {
      it("gives HDKey.deriveChild's public key, compressed and not, at many indexes of a random chain node", () => {
        const chain = HDKey.fromMasterSeed(randomBytes(32)).deriveChild(0);
        const publicChain = new HDKey({ publicKey: chain.publicKey ?? undefined, chainCode: chain.chainCode ?? undefined });
        for (const index of [0, 1, 2, 19, 20, 1000, 65_535, 123_456, 0x7fffffff]) {
          const expected = chain.deriveChild(index).publicKey;
          if (!expected) throw new Error("no public key");
          const compressed = childPublicKey(publicChain, index, true, add);
          expect(hex(compressed)).toBe(hex(expected));
          const uncompressed = childPublicKey(publicChain, index, false, add);
          expect(hex(uncompressed)).toBe(hex(secp256k1.Point.fromBytes(expected).toBytes(false)));
        }
      });

      it("refuses a tweak not below the curve's order, and one whose sum is the identity", () => {
        const secret = 0x1234_5678_9abc_def0n;
        const parent = secp256k1.Point.BASE.multiply(secret).toBytes(true);
        expect(add(parent, numberToBytesBE(ORDER, 32), true)).toBeUndefined();
        expect(add(parent, numberToBytesBE(ORDER + 5n, 32), true)).toBeUndefined();
        expect(add(parent, numberToBytesBE(ORDER - secret, 32), true)).toBeUndefined();
        // One less than the identity's tweak is the base point's negation: the step itself still works.
        expect(hex(add(parent, numberToBytesBE(ORDER - secret - 1n, 32), true))).toBe(hex(secp256k1.Point.BASE.negate().toBytes(true)));
      });
    });
  }

  it("reads a chain node's key once (HDKey copies it on every read; the same bytes let @noble/curves reuse its decoded point)", () => {
    const chain = HDKey.fromMasterSeed(randomBytes(32)).deriveChild(0);
    let reads = 0;
    const counted = Object.create(chain, {
      publicKey: {
        get: () => {
          reads += 1;
          return chain.publicKey;
        },
      },
    }) as HDKey;
    for (let index = 0; index < 5; index++) {
      expect(hex(childPublicKey(counted, index, true, nobleTweakAdd))).toBe(hex(chain.deriveChild(index).publicKey ?? undefined));
    }
    expect(reads).toBe(1);
  });

  it("leaves an index whose tweak is refused to HDKey", () => {
    const chain = HDKey.fromMasterSeed(randomBytes(32)).deriveChild(0);
    const refuse: TweakAdd = () => undefined;
    // HDKey computes the same tweak, which is valid here, so it answers with the real key.
    expect(hex(childPublicKey(chain, 7, true, refuse))).toBe(hex(chain.deriveChild(7).publicKey ?? undefined));
  });
});

// A software WebAuthn authenticator for API tests: an ES256 (P-256) key pair from node:crypto that
// answers registration options with a "none" attestation and authentication options with a signed
// assertion, built by hand as a security key would (authenticatorData, clientDataJSON, CBOR through
// @levischuck/tiny-cbor). What the browser would send, in @simplewebauthn/browser's JSON form.
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { type CBORType, encodeCBOR } from "@levischuck/tiny-cbor";

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

/** Flags of authenticatorData: user present, user verified, attested credential data. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface RegistrationAnswer {
  id: string;
  rawId: string;
  type: "public-key";
  response: { clientDataJSON: string; attestationObject: string; transports: string[] };
  clientExtensionResults: Record<string, never>;
}

export interface AssertionAnswer {
  id: string;
  rawId: string;
  type: "public-key";
  response: { clientDataJSON: string; authenticatorData: string; signature: string };
  clientExtensionResults: Record<string, never>;
}

export class SoftwareAuthenticator {
  private readonly keys = generateKeyPairSync("ec", { namedCurve: "P-256" });
  readonly credentialId = randomBytes(16);
  /** The signature counter of the next assertion is one more than this. */
  counter = 0;

  /** `origin`: where the browser would run (the dashboard's), written into clientDataJSON. */
  constructor(private readonly origin: string) {}

  get id(): string {
    return b64url(this.credentialId);
  }

  /** Answers navigator.credentials.create() options: a new credential with a "none" attestation. */
  register(options: { challenge: string; rp: { id?: string } }): RegistrationAnswer {
    const jwk = this.keys.publicKey.export({ format: "jwk" });
    // COSE_Key (RFC 9053): kty EC2, alg ES256, crv P-256, x, y.
    const coseKey = encodeCBOR(
      new Map<number, CBORType>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x ?? "", "base64url")],
        [-3, Buffer.from(jwk.y ?? "", "base64url")],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      this.header(options.rp.id ?? "", UP | UV | AT, this.counter),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      this.credentialId,
      coseKey,
    ]);
    const attestationObject = encodeCBOR(
      new Map<string, CBORType>([
        ["fmt", "none"],
        ["attStmt", new Map<string, CBORType>()],
        ["authData", authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(this.clientData("webauthn.create", options.challenge)),
        attestationObject: b64url(attestationObject),
        transports: ["usb"],
      },
      clientExtensionResults: {},
    };
  }

  /**
   * Answers navigator.credentials.get() options with an assertion of the next counter (or `counter`,
   * without moving the authenticator's own); `badSignature` signs other bytes, as a forgery would.
   */
  assert(options: { challenge: string; rpId?: string }, how: { counter?: number; badSignature?: boolean } = {}): AssertionAnswer {
    const counter = how.counter ?? ++this.counter;
    const authData = this.header(options.rpId ?? "", UP | UV, counter);
    const clientDataJSON = this.clientData("webauthn.get", options.challenge);
    const signed = Buffer.concat([authData, sha256(clientDataJSON)]);
    const signature = sign("sha256", how.badSignature ? Buffer.concat([signed, Buffer.from([0])]) : signed, this.keys.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authData), signature: b64url(signature) },
      clientExtensionResults: {},
    };
  }

  /** rpIdHash, flags and the signature counter: the first 37 bytes of authenticatorData. */
  private header(rpId: string, flags: number, counter: number): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count]);
  }

  private clientData(type: string, challenge: string): string {
    return JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false });
  }
}

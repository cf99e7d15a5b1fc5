import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { TroupeError } from './core/errors.js';

/**
 * How this server vouches for its users when it delegates to another Troupe, and whose claims it accepts
 * (README "Remote A2A experts"). Both are optional: without a signing key no claim is sent, without
 * trusted callers no claim is recorded.
 */
export interface A2AIdentitySettings {
  /** `TROUPE_A2A_ISSUER` and `TROUPE_A2A_SIGNING_KEY` (an Ed25519 private key). */
  signer: { issuer: string; key: KeyObject } | undefined;
  /** `TROUPE_A2A_TRUSTED_CALLERS`: issuer → its Ed25519 public key. */
  trustedCallers: ReadonlyMap<string, KeyObject>;
}

type Env = Record<string, string | undefined>;

/** A PEM text (`\\n` escapes allowed, for one-line env values), or base64 of the DER: env-friendly. */
function pemOrDer(value: string): { pem: string } | { der: Buffer } {
  const text = value.replace(/\\n/g, '\n').trim();
  return text.startsWith('-----BEGIN') ? { pem: text } : { der: Buffer.from(text, 'base64') };
}

function privateKey(value: string): KeyObject {
  const key = pemOrDer(value);
  return 'pem' in key
    ? createPrivateKey(key.pem)
    : createPrivateKey({ key: key.der, format: 'der', type: 'pkcs8' });
}

function publicKey(value: string): KeyObject {
  const key = pemOrDer(value);
  return 'pem' in key
    ? createPublicKey(key.pem)
    : createPublicKey({ key: key.der, format: 'der', type: 'spki' });
}

function ed25519(name: string, make: () => KeyObject): KeyObject {
  let key: KeyObject;
  try {
    key = make();
  } catch {
    throw new TroupeError('config_invalid', `${name} is not a key in PEM or base64 DER`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new TroupeError('config_invalid', `${name} must be an Ed25519 key`);
  return key;
}

export function loadA2AIdentitySettings(env: Env): A2AIdentitySettings {
  const signingKey = env.TROUPE_A2A_SIGNING_KEY?.trim();
  const issuer = env.TROUPE_A2A_ISSUER?.trim();
  if (signingKey && !issuer)
    throw new TroupeError(
      'config_invalid',
      'TROUPE_A2A_SIGNING_KEY needs TROUPE_A2A_ISSUER (this server’s name)',
    );
  const signer = signingKey
    ? {
        issuer: issuer ?? '',
        key: ed25519('TROUPE_A2A_SIGNING_KEY', () => privateKey(signingKey)),
      }
    : undefined;
  const trustedCallers = new Map<string, KeyObject>();
  const trusted = env.TROUPE_A2A_TRUSTED_CALLERS?.trim();
  if (trusted) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trusted);
    } catch {
      throw new TroupeError(
        'config_invalid',
        'TROUPE_A2A_TRUSTED_CALLERS must be a JSON object: issuer → public key',
      );
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new TroupeError(
        'config_invalid',
        'TROUPE_A2A_TRUSTED_CALLERS must be a JSON object: issuer → public key',
      );
    for (const [name, value] of Object.entries(parsed)) {
      if (typeof value !== 'string')
        throw new TroupeError(
          'config_invalid',
          `TROUPE_A2A_TRUSTED_CALLERS: the key of ${name} must be a string`,
        );
      trustedCallers.set(
        name,
        ed25519(`TROUPE_A2A_TRUSTED_CALLERS["${name}"]`, () => publicKey(value)),
      );
    }
  }
  return { signer, trustedCallers };
}

import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadA2AIdentitySettings } from './a2a-identity-settings.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const publicDer = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');

describe('A2A identity settings', () => {
  it('are off by default', () => {
    expect(loadA2AIdentitySettings({})).toEqual({ signer: undefined, trustedCallers: new Map() });
  });

  it('read a PEM signing key (with escaped newlines too) and base64 DER public keys', () => {
    const settings = loadA2AIdentitySettings({
      TROUPE_A2A_ISSUER: 'server-a',
      TROUPE_A2A_SIGNING_KEY: pem.replace(/\n/g, '\\n'),
      TROUPE_A2A_TRUSTED_CALLERS: JSON.stringify({ 'server-b': publicDer }),
    });
    expect(settings.signer?.issuer).toBe('server-a');
    expect(settings.signer?.key.asymmetricKeyType).toBe('ed25519');
    expect(settings.trustedCallers.get('server-b')?.equals(publicKey)).toBe(true);
  });

  it('refuses a key without an issuer, a key that is not Ed25519 and a malformed trust list', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
      format: 'pem',
      type: 'pkcs8',
    });
    expect(() => loadA2AIdentitySettings({ TROUPE_A2A_SIGNING_KEY: pem })).toThrow(/TROUPE_A2A_ISSUER/);
    expect(() =>
      loadA2AIdentitySettings({ TROUPE_A2A_ISSUER: 'a', TROUPE_A2A_SIGNING_KEY: rsa.toString() }),
    ).toThrow(/Ed25519/);
    expect(() => loadA2AIdentitySettings({ TROUPE_A2A_TRUSTED_CALLERS: '[1]' })).toThrow(/JSON object/);
    expect(() => loadA2AIdentitySettings({ TROUPE_A2A_TRUSTED_CALLERS: '{"a":"AAAA"}' })).toThrow(
      /not a key/,
    );
  });
});

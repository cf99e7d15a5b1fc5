import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signCallerClaim, verifyCallerClaim } from './caller-claim.js';

const keys = generateKeyPairSync('ed25519');
const trusted = new Map([['server-a', keys.publicKey]]);
const now = 2_000_000_000;
const claim = {
  sub: 'usr_1',
  name: 'alice',
  aud: 'https://b.example',
  iat: now,
  exp: now + 300,
  jti: 'run-1',
};

describe('caller claims', () => {
  it('are compact EdDSA JWS that verify with the issuer key', () => {
    const token = signCallerClaim('server-a', keys.privateKey, claim);
    const [header, payload] = token.split('.');
    expect(JSON.parse(Buffer.from(header ?? '', 'base64url').toString())).toEqual({
      alg: 'EdDSA',
      typ: 'JWT',
      kid: 'server-a',
    });
    expect(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString())).toEqual({
      iss: 'server-a',
      ...claim,
    });
    expect(verifyCallerClaim(token, trusted, 'https://b.example', now + 10)).toEqual({
      caller: { issuer: 'server-a', subject: 'usr_1', name: 'alice' },
    });
  });

  it('refuses a changed payload, another audience, an expired or future claim; ignores unknown issuers', () => {
    const token = signCallerClaim('server-a', keys.privateKey, claim);
    const [header, , signature] = token.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ iss: 'server-a', ...claim, sub: 'usr_admin' })).toString('base64url')}.${signature}`;
    const refused = (value: ReturnType<typeof verifyCallerClaim>) =>
      value && 'refused' in value ? value.refused : '';
    expect(refused(verifyCallerClaim(forged, trusted, 'https://b.example', now))).toMatch(/does not verify/);
    expect(refused(verifyCallerClaim(token, trusted, 'https://c.example', now))).toMatch(/another server/);
    expect(refused(verifyCallerClaim(token, trusted, 'https://b.example', now + 1000))).toMatch(/expired/);
    expect(refused(verifyCallerClaim(token, trusted, 'https://b.example', now - 1000))).toMatch(/future/);
    expect(refused(verifyCallerClaim('not-a-jws', trusted, 'https://b.example', now))).toMatch(/compact JWS/);
    expect(
      verifyCallerClaim(
        signCallerClaim('server-z', keys.privateKey, claim),
        trusted,
        'https://b.example',
        now,
      ),
    ).toBeUndefined();
  });
});

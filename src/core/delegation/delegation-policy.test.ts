import { describe, expect, it } from 'vitest';
import { TroupeError } from '../errors.js';
import { DELEGATION_WHITELIST_MAX, normalizeDelegationPolicy } from './delegation-policy.js';

const fifteen = Array.from({ length: 15 }, (_, index) => `expert-${String(index + 1).padStart(2, '0')}`);

describe('normalizeDelegationPolicy', () => {
  it('keeps the first 10 of a whitelist of 15 and reports the 5 dropped, in order', () => {
    const result = normalizeDelegationPolicy('whitelist', fifteen);
    expect(DELEGATION_WHITELIST_MAX).toBe(10);
    expect(result.whitelist).toEqual(fifteen.slice(0, 10));
    expect(result.dropped).toEqual(fifteen.slice(10));
  });

  it('collapses duplicates and trims before counting, so a repeated entry is not "dropped"', () => {
    const result = normalizeDelegationPolicy('whitelist', [
      'analyst',
      ' analyst ',
      'agt_0123456789abcdef0123',
      'analyst',
    ]);
    expect(result).toEqual({
      policy: 'whitelist',
      whitelist: ['analyst', 'agt_0123456789abcdef0123'],
      dropped: [],
    });
  });

  it('refuses a whitelist policy without entries and entries that are neither slugs nor ids', () => {
    expect(() => normalizeDelegationPolicy('whitelist', [])).toThrow(TroupeError);
    expect(() => normalizeDelegationPolicy('whitelist', ['Not A Slug'])).toThrow(/slugs or ids: Not A Slug/);
  });

  it('ignores (and clears) a whitelist sent with policy none or all', () => {
    expect(normalizeDelegationPolicy('all', fifteen)).toEqual({ policy: 'all', whitelist: [], dropped: [] });
    expect(normalizeDelegationPolicy('none', ['analyst'])).toEqual({
      policy: 'none',
      whitelist: [],
      dropped: [],
    });
  });
});

import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact-url.js';

describe('redactUrl', () => {
  it('masks the password and keeps the rest', () => {
    expect(redactUrl('postgres://u:pw@h:5432/d')).toBe('postgres://u:***@h:5432/d');
    expect(redactUrl('redis://:s3cret@127.0.0.1:6379/0')).toBe('redis://:***@127.0.0.1:6379/0');
  });

  it('leaves a URL without a password as it is', () => {
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });

  it('never echoes what it cannot parse', () => {
    expect(redactUrl('not a url :s3cret@', 'Redis URL')).toBe('(unparseable Redis URL)');
  });
});

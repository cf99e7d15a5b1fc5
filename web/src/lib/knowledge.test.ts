import { describe, expect, it } from 'vitest';
import { citation, describeLocation, KNOWLEDGE_NAME_PATTERN } from './knowledge.ts';

describe('knowledge helpers', () => {
  it('cites a passage by source, document, heading path and page', () => {
    const location = { heading_path: ['Security', 'API tokens'], page: null, start: 0, end: 10 };
    expect(citation({ source_name: 'ops', document_name: 'security.md', location })).toBe(
      'ops/security.md § Security > API tokens',
    );
    expect(describeLocation({ heading_path: [], page: 3, start: 0, end: 1 })).toBe(', page 3');
    expect(describeLocation({ heading_path: [], page: null, start: 0, end: 1 })).toBe('');
  });

  it('matches names like the server', () => {
    const pattern = new RegExp(`^${KNOWLEDGE_NAME_PATTERN}$`);
    expect(['ops-handbook', 'a1', 'team_docs'].every((name) => pattern.test(name))).toBe(true);
    expect(['A', '1abc', 'x', 'has space'].some((name) => pattern.test(name))).toBe(false);
  });
});

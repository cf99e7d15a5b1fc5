import { describe, expect, it } from 'vitest';
import type { Conversation } from '../api/types.ts';
import { groupConversationsByDate } from './conversation-groups.ts';

function at(id: string, local: string): Conversation {
  return {
    id,
    user_id: 'usr',
    agent_id: 'agt',
    thread_id: `thr_${id}`,
    project_id: 'prj',
    status: 'active',
    title: id,
    metadata: {},
    created_at: new Date(local).toISOString(),
    updated_at: new Date(local).toISOString(),
  };
}

describe('groupConversationsByDate', () => {
  const now = new Date('2030-03-10T09:30:00').getTime();

  it('puts each conversation in its local day group, newest order kept, empty groups left out', () => {
    const list = [
      at('morning', '2030-03-10T08:00:00'),
      at('midnight', '2030-03-10T00:00:00'),
      at('late-yesterday', '2030-03-09T23:59:00'),
      at('yesterday', '2030-03-09T00:00:00'),
      at('six-days', '2030-03-04T12:00:00'),
      at('seven-days', '2030-03-03T00:00:00'),
      at('eight-days', '2030-03-02T23:59:00'),
      at('last-year', '2029-03-10T12:00:00'),
    ];
    expect(
      groupConversationsByDate(list, now).map((group) => [
        group.label,
        group.conversations.map((item) => item.id),
      ]),
    ).toEqual([
      ['Today', ['morning', 'midnight']],
      ['Yesterday', ['late-yesterday', 'yesterday']],
      ['Previous 7 days', ['six-days', 'seven-days']],
      ['Older', ['eight-days', 'last-year']],
    ]);
  });

  it('gives nothing for nothing', () => {
    expect(groupConversationsByDate([], now)).toEqual([]);
    expect(
      groupConversationsByDate([at('old', '2020-01-01T00:00:00')], now).map((group) => group.label),
    ).toEqual(['Older']);
  });
});

import type { Agent } from '../../core/records/agent.js';

/** What a remote expert's run shows where a local run names its model: the remote agent's host. */
export function remoteModelLabel(agent: Agent): string {
  const cardUrl = agent.config.a2a?.card_url;
  if (cardUrl === undefined) return 'a2a';
  try {
    return `a2a:${new URL(cardUrl).host}`;
  } catch {
    return 'a2a';
  }
}

import type { TestServer } from '../../helpers/start-test-server.js';
import type { SweepOptions } from './malformed-sweep.js';

/**
 * Real records for the sweep's path params: a conversation of the demo assistant with one finished run,
 * the assistant agent and the demo user. Requests that could change them never carry their ids.
 */
export async function sweepFixture(server: TestServer): Promise<SweepOptions['realIds']> {
  const created = await server.api('/api/conversations', {
    method: 'POST',
    body: JSON.stringify({ agent_id: 'assistant', title: 'sweep' }),
  });
  const { conversation } = (await created.json()) as {
    conversation: { id: string; agent_id: string; user_id: string };
  };
  const posted = await server.api(`/api/conversations/${conversation.id}/messages`, {
    method: 'POST',
    body: JSON.stringify({ content: 'a note for the sweep' }),
  });
  const { run } = (await posted.json()) as { run: { id: string } };
  await server.api(`/api/agent/runs/${run.id}/await?timeout_ms=30000`);
  return (path, param) => {
    if (path.startsWith('/api/agent/runs/')) return param === 'id' ? run.id : undefined;
    if (path.startsWith('/api/agent/{id}'))
      return param === 'id' ? conversation.agent_id : param === 'user_id' ? conversation.user_id : undefined;
    if (path.startsWith('/api/conversations/{id}')) return param === 'id' ? conversation.id : undefined;
    // The demo's published expert, so junk reaches the A2A JSON-RPC parser instead of a 404.
    if (path.startsWith('/a2a/{id}')) return param === 'id' ? 'analyst' : undefined;
    return undefined;
  };
}

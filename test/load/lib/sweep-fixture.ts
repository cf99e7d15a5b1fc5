import type { TestServer } from '../../helpers/start-test-server.js';
import type { SweepOptions } from './sweep-options.js';

/**
 * Real records for the sweep's path params: a conversation of the demo assistant with one finished run,
 * the assistant agent, the demo user and the demo skill. Requests that could change them never carry their ids.
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
  // The demo's `report` branch presents an artifact, so the download route is swept with a real one too.
  const reported = await server.api(`/api/conversations/${conversation.id}/messages`, {
    method: 'POST',
    body: JSON.stringify({ content: 'a report for the sweep' }),
  });
  const { run: reportRun } = (await reported.json()) as { run: { id: string } };
  await server.api(`/api/agent/runs/${reportRun.id}/await?timeout_ms=30000`);
  const listed = await server.api(`/api/conversations/${conversation.id}/artifacts`);
  const { artifacts } = (await listed.json()) as { artifacts: { id: string }[] };
  return (path, param) => {
    if (path.startsWith('/api/agent/runs/')) return param === 'id' ? run.id : undefined;
    if (path.startsWith('/api/conversations/{id}/artifacts/{artifact_id}'))
      return param === 'id' ? conversation.id : param === 'artifact_id' ? artifacts[0]?.id : undefined;
    if (path.startsWith('/api/agent/{id}'))
      return param === 'id' ? conversation.agent_id : param === 'user_id' ? conversation.user_id : undefined;
    if (path.startsWith('/api/conversations/{id}')) return param === 'id' ? conversation.id : undefined;
    // The demo's public skill, owned by the demo user.
    if (path.startsWith('/api/skills/{id}')) return param === 'id' ? 'citation-style' : undefined;
    // The demo knowledge source: reads and searches use it; uploads and deletes never carry a real id.
    if (path.startsWith('/api/knowledge/{id}')) return param === 'id' ? 'ops-handbook' : undefined;
    // The demo's published expert, so junk reaches the A2A JSON-RPC parser instead of a 404.
    if (path.startsWith('/a2a/{id}')) return param === 'id' ? 'analyst' : undefined;
    return undefined;
  };
}

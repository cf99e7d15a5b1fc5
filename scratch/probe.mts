import { startTestServer } from '../test/helpers/start-test-server.js';
const s = await startTestServer();
const c = await s.api('/api/conversations', { method: 'POST', body: JSON.stringify({ agent_id: 'assistant' }) });
console.log(c.status, await c.clone().text());
const conv = await c.json();
const p = await s.api(`/api/conversations/${conv.id}/messages`, { method: 'POST', body: JSON.stringify({ content: 'hi' }) });
console.log(p.status, await p.text());
await s.close();

import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createTroupe } from '../src/main.js';
import { newId } from '../src/core/ids.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-bench-'));
const scen = path.join(dir, 'scenarios'); mkdirSync(scen);
writeFileSync(path.join(scen, 'main.yaml'), `rules:\n  - steps:\n      - tool_calls:\n          - name: task\n            args: { subagent_slug: helper, description: "Investigate: {{input}}" }\n      - text: "Main got: {{last_tool_result}}"\n`);
writeFileSync(path.join(scen, 'helper.yaml'), `rules:\n  - steps:\n      - text: "Helper report on <{{input}}>"\n`);
const config = { ...loadConfig({ TROUPE_DATA_DIR: path.join(dir, 'data'), TROUPE_SCENARIO_DIR: scen, TROUPE_PORT: '0' }) };
const t = await createTroupe(config);
const s = t.storage;
const user = await s.users.create({ name: 'bench', role: 'member' });
const mk = async (slug: string, cfg: object, sub: boolean) => { const a = await s.agents.create({ slug, name: slug, description: slug, backend: sub ? 'subagent' : 'chat', is_subagent: sub, owner_id: user.id, visibility: 'private', config: cfg, status: 'draft', delegatable: true, delegation_brief: null, is_default: false }); await s.access.grant(user.id, a.id, 'created'); return a; };
await mk('helper', { model: 'scripted:helper', tools: [] }, true);
const main = await mk('main', { model: 'scripted:main', tools: [], tool_approval_mode: 'always_trust' }, false);
const project = await s.projects.create({ user_id: user.id, name: 'p', workdir: path.join(dir, 'wd') }); mkdirSync(path.join(dir, 'wd'));
const N = Number(process.argv[2] ?? 300);
const convs = [];
for (let i = 0; i < N + 50; i++) convs.push(await s.conversations.create({ user_id: user.id, agent_id: main.id, thread_id: newId('thr'), project_id: project.id, status: 'active', title: 'b', metadata: {} }));
const times: number[] = [];
for (let i = 0; i < convs.length; i++) {
  const t0 = performance.now();
  const { run } = await t.runs.postMessage(user, convs[i]!.id, { content: 'q' + i });
  const r = await t.runs.await(user, run.id, 10000);
  const dt = performance.now() - t0;
  if (r.run.status !== 'completed') throw new Error(r.run.status + JSON.stringify(r.run.error));
  if (i >= 50) times.push(dt);
  if (i === 0) console.log(r.run.output);
}
times.sort((a, b) => a - b);
console.log('median', times[times.length >> 1], 'p99', times[Math.floor(times.length * 0.99)]);
await t.close();

import { describe, expect, it } from 'vitest';
import {
  adminQuery,
  flatten,
  RUN_TIMEOUT_MS,
  scaleOutUrls,
  TERMINAL,
  useScaleOutCluster,
  type TreeNode,
} from '../helpers/scale-out-cluster.js';
import { delay, eventually } from '../helpers/server-process.js';
import { busyTurn, roleOf, teamTurn, turnOf } from '../helpers/role-model.js';

/* The stop guarantee across processes (the cluster: test/helpers/scale-out-cluster.ts). */
const urls = scaleOutUrls();
if (urls) {
  const cluster = useScaleOutCluster(urls);
  const { api, json, startRun, failureReport, databaseUrl } = cluster;

  describe('scale-out: one API process, two workers, PostgreSQL and Redis', () => {
    it(
      'stop guarantee across processes: after a cancel no model request of the tree reaches the model',
      async () => {
        try {
          await json(
            api('/api/me/delegation-policy', { method: 'PUT', body: JSON.stringify({ policy: 'all' }) }),
          );
          for (const [slug, extra] of [
            ['boss', {}],
            ['worker', { status: 'published' }],
            ['helper', { status: 'published' }],
            ['gatekeeper', {}],
          ] as const) {
            await json(
              api('/api/agent', {
                method: 'POST',
                body: JSON.stringify({
                  slug,
                  name: slug,
                  description: `The ${slug}`,
                  config: { model: 'openai:gpt-test', system_prompt: `ROLE:${slug}` },
                  ...extra,
                }),
              }),
              201,
            );
          }
          // The boss, 5 subagents, 5 workers and 5 helpers: each has one request at the model, answered in a minute.
          cluster.answer = (role, turn) => teamTurn(role, turn, 10);
          const before = cluster.model.requests.length;
          const boss = await startRun('Run the whole team', 'boss');
          await eventually('16 requests at the model', RUN_TIMEOUT_MS, () =>
            Promise.resolve(cluster.model.requests.length - before >= 16 ? true : undefined),
          );
          await json(api(`/api/agent/runs/${boss.id}/cancel`, { method: 'POST' }));
          const tree = await eventually('a terminal tree', RUN_TIMEOUT_MS, async () => {
            const nodes = flatten(
              (await json<{ tree: TreeNode }>(api(`/api/agent/runs/${boss.id}/tree`))).tree,
            );
            return nodes.every((node) => TERMINAL.includes(node.run.status)) ? nodes : undefined;
          });
          await delay(500);
          expect(cluster.model.requests.length - before).toBe(16);
          expect(tree.map((node) => node.run.status)).toEqual(Array.from({ length: 16 }, () => 'cancelled'));

          // Only the database learns of a cancel (no signal, no cascade): the workers' gates stop the children.
          cluster.answer = (role, turn) =>
            role === 'gatekeeper' && turn === 0
              ? {
                  toolCalls: [0, 1, 2, 3].map((index) => ({
                    name: 'task',
                    args: { subagent_slug: 'general-purpose', description: `CHILD gate ${index}` },
                  })),
                }
              : busyTurn(20);
          const gatekeeper = await startRun('Keep them busy', 'gatekeeper');
          await eventually('children calling the model repeatedly', RUN_TIMEOUT_MS, () =>
            Promise.resolve(
              cluster.model.requests.filter((request) => roleOf(request) === 'child' && turnOf(request) >= 2)
                .length >= 4
                ? true
                : undefined,
            ),
          );
          await adminQuery(
            databaseUrl,
            `UPDATE runs SET status = 'cancel_requested' WHERE id = '${gatekeeper.id}'`,
          );
          const children = await eventually('children stopped by the gate', RUN_TIMEOUT_MS, async () => {
            const root = (await json<{ tree: TreeNode }>(api(`/api/agent/runs/${gatekeeper.id}/tree`))).tree;
            return root.children.length === 4 &&
              root.children.every((child) => child.run.status === 'cancelled')
              ? root.children
              : undefined;
          });
          expect(children.map((child) => child.run.error?.type)).toEqual(
            Array.from({ length: 4 }, () => 'execution_tree_closed'),
          );
          const settled = cluster.model.requests.length;
          await delay(500);
          expect(cluster.model.requests.length).toBe(settled);
        } catch (error) {
          throw new Error(`${String(error)}\n${failureReport()}`, { cause: error });
        }
      },
      4 * RUN_TIMEOUT_MS,
    );
  });
}

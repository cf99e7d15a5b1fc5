import { describe, expect, it } from 'vitest';
import { json } from '../../test/helpers/http/expect-error.js';
import { useSkillRoutesContext } from '../../test/helpers/http/use-skill-routes-context.js';

const skills = useSkillRoutesContext();

describe('config.skills in agent warnings and the build report', () => {
  it('reports unknown, invisible and malformed skill names of the agent and of its inline specs', async () => {
    const { ctx, alice, bob, create } = skills();
    await create(bob, 'bobs-private');
    await create(alice, 'mine');
    const response = await ctx.request('POST', '/api/agent', {
      token: alice.token,
      body: {
        name: 'Main',
        slug: 'main',
        config: {
          tools: ['read_file'],
          skills: ['mine', 'bobs-private', 'Bad Name'],
          subagent_specs: [
            {
              name: 'scan',
              description: 'd',
              system_prompt: 'p',
              tools: ['read_file'],
              skills: ['mine', 'nope', 7],
            },
          ],
        },
      },
    });
    const { warnings } = await json<{
      warnings: { code: string; value: string; spec_index: number | null }[];
    }>(response, 201);
    const skillEntries = warnings
      .filter((entry) => entry.code.endsWith('_skill'))
      .map((entry) => [entry.code, entry.value, entry.spec_index]);
    expect(skillEntries).toEqual([
      ['invalid_skill', '7', 0],
      ['unknown_skill', 'bobs-private', null],
      ['invalid_skill', 'Bad Name', null],
      ['unknown_skill', 'nope', 0],
    ]);
    const report = await json<{ report: { code: string; value: string }[] }>(
      await ctx.request('GET', '/api/agent/main/build-report', { token: alice.token }),
      200,
    );
    expect(
      report.report.filter((entry) => entry.code === 'unknown_skill').map((entry) => entry.value),
    ).toEqual(['bobs-private', 'nope']);
  });
});

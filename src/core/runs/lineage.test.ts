import { describe, expect, it } from 'vitest';
import type { Run } from '../records/run.js';
import { buildNewRun } from './build-new-run.js';
import { childHops, hopsOf, isOwnedChild, lineageFor } from './lineage.js';

const parent = {
  id: 'run-b',
  user_id: 'usr_a',
  root_run_id: 'run-a',
  depth: 1,
  runtime_scope_id: 'thr_a',
  tool_approval_mode: 'always_trust',
  run_type: 'delegation',
  model_spec: 'scripted:b',
} as const satisfies Partial<Run>;
const agent = { id: 'agt_c', config: { model: 'scripted:c', tool_approval_mode: 'default' } } as const;

describe('lineageFor', () => {
  it("puts a child in its creator's tree and scope, one level deeper, with the creator's approval mode", () => {
    expect(lineageFor(parent, { runId: 'run-c', threadId: 'thr_c', agent })).toEqual({
      created_by_run_id: 'run-b',
      root_run_id: 'run-a',
      depth: 2,
      runtime_scope_id: 'thr_a',
      tool_approval_mode: 'always_trust',
    });
  });

  it("starts a root's own tree, scoped to its thread, with its agent's approval mode", () => {
    expect(lineageFor(undefined, { runId: 'run-r', threadId: 'thr_r', agent: { config: {} } })).toEqual({
      created_by_run_id: null,
      root_run_id: 'run-r',
      depth: 0,
      runtime_scope_id: 'thr_r',
      tool_approval_mode: 'default',
    });
  });
});

describe('hops by kind', () => {
  it('counts a subagent run as one subagent hop and every other hop as a delegation', () => {
    expect(hopsOf({ run_type: 'chat', depth: 0 })).toEqual({ subagent: 0, delegation: 0 });
    expect(hopsOf({ run_type: 'subagent', depth: 1 })).toEqual({ subagent: 1, delegation: 0 });
    expect(hopsOf({ run_type: 'delegation', depth: 2 })).toEqual({ subagent: 0, delegation: 2 });
    expect(hopsOf({ run_type: 'subagent', depth: 3 })).toEqual({ subagent: 1, delegation: 2 });
    // A top-level `POST /api/delegate` run is a root: no hop yet.
    expect(hopsOf({ run_type: 'delegation', depth: 0 })).toEqual({ subagent: 0, delegation: 0 });
  });

  it("gives a delegated expert's subagent one subagent hop, whatever the delegation hops above", () => {
    expect(childHops({ run_type: 'delegation', depth: 2 }, 'subagent')).toEqual({
      subagent: 1,
      delegation: 2,
    });
    expect(childHops({ run_type: 'chat', depth: 0 }, 'subagent')).toEqual({ subagent: 1, delegation: 0 });
  });

  it('adds a delegation hop per delegation; a delegation without a parent is a root', () => {
    expect(childHops({ run_type: 'chat', depth: 0 }, 'delegation')).toEqual({ subagent: 0, delegation: 1 });
    expect(childHops({ run_type: 'delegation', depth: 2 }, 'delegation')).toEqual({
      subagent: 0,
      delegation: 3,
    });
    expect(childHops(undefined, 'delegation')).toEqual({ subagent: 0, delegation: 0 });
  });
});

describe('isOwnedChild', () => {
  const creator = { id: 'run-b', user_id: 'usr_a' };

  it('owns a run it created for the same user, and nothing else', () => {
    expect(isOwnedChild({ user_id: 'usr_a', created_by_run_id: 'run-b' }, creator)).toBe(true);
    expect(isOwnedChild({ user_id: 'usr_x', created_by_run_id: 'run-b' }, creator)).toBe(false);
    expect(isOwnedChild({ user_id: 'usr_a', created_by_run_id: 'run-z' }, creator)).toBe(false);
    expect(isOwnedChild({ user_id: 'usr_a', created_by_run_id: null }, creator)).toBe(false);
    expect(isOwnedChild(undefined, creator)).toBe(false);
    expect(isOwnedChild({ user_id: 'usr_a', created_by_run_id: 'run-b' }, undefined)).toBe(false);
  });
});

describe('buildNewRun', () => {
  it("builds a child row: the agent's model, the creator's lineage, the given request id", () => {
    const row = buildNewRun({
      id: 'run-c',
      run_type: 'delegation',
      channel: 'internal',
      user_id: 'usr_a',
      agent,
      thread_id: 'thr_c',
      conversation_id: 'cnv_c',
      parent,
      request_id: 'req:abc',
      fallback_model: 'scripted:default',
      input: { message: 'hi' },
    });
    expect(row).toEqual({
      id: 'run-c',
      thread_id: 'thr_c',
      conversation_id: 'cnv_c',
      agent_id: 'agt_c',
      user_id: 'usr_a',
      run_type: 'delegation',
      source: 'delegation',
      channel: 'internal',
      request_id: 'req:abc',
      created_by_run_id: 'run-b',
      root_run_id: 'run-a',
      depth: 2,
      subagent_thread_relation_id: null,
      runtime_scope_id: 'thr_a',
      tool_approval_mode: 'always_trust',
      model_spec: 'scripted:c',
      input: { message: 'hi' },
    });
  });

  it('gives a run without a request id its own, and the fallback model to an agent without one', () => {
    const row = buildNewRun({
      id: 'run-r',
      run_type: 'chat',
      channel: 'api',
      user_id: 'usr_a',
      agent: { id: 'agt_r', config: {} },
      thread_id: 'thr_r',
      conversation_id: 'cnv_r',
      parent: undefined,
      fallback_model: 'scripted:default',
      input: { message: 'hi' },
    });
    expect(row).toMatchObject({
      request_id: 'req_run-r',
      model_spec: 'scripted:default',
      root_run_id: 'run-r',
      depth: 0,
    });
  });
});

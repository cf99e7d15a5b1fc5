import { describe, expect, it } from 'vitest';
import { DELEGATION_TEXTS } from '../delegation/delegation-texts.js';
import { SUBAGENT_TEXTS } from '../subagents/subagent-texts.js';
import { CHILD_RUN_LIMIT_TEXTS, depthRefusal, quotaRefusal } from './child-run-limits.js';
import { parentRefusal, TREE_STOPPING } from './child-run-parent.js';

const limits = {
  subagentMaxDepth: 1,
  delegationMaxDepth: 2,
  maxActiveChildrenPerRun: 5,
  maxActiveChildrenPerUser: 20,
};

describe('depthRefusal: each kind against its own limit', () => {
  it('lets a delegation chain reach the limit and refuses the hop past it', () => {
    expect(depthRefusal('delegation', undefined, limits)).toBeUndefined();
    expect(depthRefusal('delegation', { run_type: 'chat', depth: 0 }, limits)).toBeUndefined();
    expect(depthRefusal('delegation', { run_type: 'delegation', depth: 1 }, limits)).toBeUndefined();
    expect(depthRefusal('delegation', { run_type: 'delegation', depth: 2 }, limits)).toBe(
      DELEGATION_TEXTS.depthExceeded(2),
    );
    expect(
      depthRefusal('delegation', { run_type: 'chat', depth: 0 }, { ...limits, delegationMaxDepth: 0 }),
    ).toBe(DELEGATION_TEXTS.depthExceeded(0));
  });

  it('does not count delegation hops against the subagent limit', () => {
    expect(depthRefusal('subagent', { run_type: 'chat', depth: 0 }, limits)).toBeUndefined();
    expect(depthRefusal('subagent', { run_type: 'delegation', depth: 1 }, limits)).toBeUndefined();
    expect(depthRefusal('subagent', { run_type: 'delegation', depth: 2 }, limits)).toBeUndefined();
    expect(
      depthRefusal('subagent', { run_type: 'delegation', depth: 2 }, { ...limits, subagentMaxDepth: 0 }),
    ).toBe(SUBAGENT_TEXTS.depthExceeded(0));
  });
});

describe('quotaRefusal', () => {
  it('refuses at the per-run limit first, then at the per-user limit, with the wording of the kind', () => {
    expect(quotaRefusal('subagent', { ofRun: 4, ofUser: 19 }, limits)).toBeUndefined();
    expect(quotaRefusal('subagent', { ofRun: 5, ofUser: 20 }, limits)).toBe(
      SUBAGENT_TEXTS.tooManyChildren(5),
    );
    expect(quotaRefusal('subagent', { ofRun: 0, ofUser: 20 }, limits)).toBe(
      SUBAGENT_TEXTS.tooManyForUser(20),
    );
    expect(quotaRefusal('delegation', { ofRun: 5, ofUser: 0 }, limits)).toBe(
      DELEGATION_TEXTS.tooManyChildren(5),
    );
    expect(quotaRefusal('delegation', { ofRun: 0, ofUser: 20 }, limits)).toBe(
      DELEGATION_TEXTS.tooManyForUser(20),
    );
  });

  it('keeps the texts the models and clients already know', () => {
    expect(CHILD_RUN_LIMIT_TEXTS.subagent.depthExceeded(1)).toBe(
      'Subagent depth limit reached (max 1); do this work yourself',
    );
    expect(CHILD_RUN_LIMIT_TEXTS.delegation.tooManyForUser(3)).toBe(
      'You already have 3 active child runs (the limit); wait for one to finish before delegating',
    );
  });
});

describe('parentRefusal', () => {
  const running = { user_id: 'usr_a', run_type: 'chat', status: 'running' } as const;

  it("accepts the user's own working main-agent run", () => {
    expect(parentRefusal('subagent', running, 'usr_a')).toBeUndefined();
    expect(parentRefusal('delegation', { ...running, run_type: 'delegation' }, 'usr_a')).toBeUndefined();
  });

  it("treats a missing or foreign parent as missing, in each kind's words", () => {
    expect(parentRefusal('subagent', undefined, 'usr_a')).toBe(SUBAGENT_TEXTS.parentMissing);
    expect(parentRefusal('subagent', running, 'usr_b')).toBe(SUBAGENT_TEXTS.parentMissing);
    expect(parentRefusal('delegation', running, 'usr_b')).toBe(DELEGATION_TEXTS.notFound);
  });

  it('refuses a subagent parent for both kinds', () => {
    const subagent = { ...running, run_type: 'subagent' } as const;
    expect(parentRefusal('subagent', subagent, 'usr_a')).toBe(SUBAGENT_TEXTS.subagentCannotStart);
    expect(parentRefusal('delegation', subagent, 'usr_a')).toBe(DELEGATION_TEXTS.subagentCannotDelegate);
  });

  it('needs a running creator for a subagent, any active one for a delegation', () => {
    const waiting = { ...running, status: 'input_required' } as const;
    expect(parentRefusal('subagent', waiting, 'usr_a')).toBe(SUBAGENT_TEXTS.creatorNotRunning);
    expect(parentRefusal('delegation', waiting, 'usr_a')).toBeUndefined();
    expect(parentRefusal('delegation', { ...running, status: 'completed' }, 'usr_a')).toBe(
      DELEGATION_TEXTS.parentNotActive,
    );
  });

  it('starts nothing once a cancel is committed on the creator or above it, for anyone (docs/budgets.md)', () => {
    const cancelling = { ...running, status: 'cancel_requested' } as const;
    const quiet = { stoppedAbove: false, byToolCall: false };
    const above = { stoppedAbove: true, byToolCall: false };
    expect(parentRefusal('subagent', cancelling, 'usr_a', quiet)).toBe(TREE_STOPPING);
    expect(parentRefusal('delegation', cancelling, 'usr_a', quiet)).toBe(TREE_STOPPING);
    expect(parentRefusal('delegation', running, 'usr_a', above)).toBe(TREE_STOPPING);
    expect(parentRefusal('subagent', running, 'usr_a', above)).toBe(TREE_STOPPING);
    // Another user's run stays unknown, whatever its state.
    expect(parentRefusal('delegation', cancelling, 'usr_b', above)).toBe(DELEGATION_TEXTS.notFound);
  });

  it("needs a running creator for a tool call's start, as the run gate would", () => {
    const waiting = { ...running, status: 'input_required' } as const;
    expect(parentRefusal('delegation', waiting, 'usr_a', { stoppedAbove: false, byToolCall: true })).toBe(
      DELEGATION_TEXTS.parentNotActive,
    );
    expect(
      parentRefusal('delegation', running, 'usr_a', { stoppedAbove: false, byToolCall: true }),
    ).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { zeroAmounts, type RunBudget } from './budget.js';
import { carveChildBudget, unusedReserve } from './carve-child-budget.js';
import { narrowBudget } from './narrow-budget.js';

const now = new Date('2030-01-01T00:00:00.000Z');

function ledger(overrides: Partial<RunBudget> = {}): RunBudget {
  return {
    run_id: 'run_parent',
    parent_run_id: null,
    limits: { tokens: 1000, model_calls: 10 },
    deadline_at: null,
    used: zeroAmounts(),
    carved: zeroAmounts(),
    reserved: zeroAmounts(),
    ...overrides,
  };
}

describe('carveChildBudget', () => {
  it('gives the default share of what remains and reserves exactly that', () => {
    const parent = ledger({
      used: { tokens: 200, model_calls: 2, tool_calls: 0 },
      carved: { tokens: 0, model_calls: 2, tool_calls: 0 },
    });
    const carved = carveChildBudget({
      parent,
      requested: undefined,
      agent: undefined,
      defaultShare: 0.5,
      now,
    });
    expect(carved).toEqual({
      kind: 'granted',
      limits: { tokens: 400, model_calls: 3 },
      deadline_at: null,
      reserve: { tokens: 400, model_calls: 3, tool_calls: 0 },
    });
  });

  it('grants an explicit ask that fits and refuses one that does not', () => {
    const parent = ledger();
    expect(
      carveChildBudget({ parent, requested: { model_calls: 10 }, agent: undefined, defaultShare: 0.5, now }),
    ).toMatchObject({
      kind: 'granted',
      limits: { model_calls: 10, tokens: 500 },
    });
    expect(
      carveChildBudget({ parent, requested: { model_calls: 11 }, agent: undefined, defaultShare: 0.5, now }),
    ).toEqual({
      kind: 'refused',
      refusal: {
        code: 'budget_exhausted',
        reason: 'The child asks for 11 model calls but only 10 remain',
        dimension: 'model_calls',
        limit: 10,
        spent: 0,
      },
    });
    const spent = ledger({ used: { tokens: 1000, model_calls: 0, tool_calls: 0 } });
    expect(
      carveChildBudget({ parent: spent, requested: undefined, agent: undefined, defaultShare: 0.5, now }),
    ).toMatchObject({ kind: 'refused', refusal: { dimension: 'tokens', limit: 1000, spent: 1000 } });
  });

  it("narrows by the child agent's own budget, and without a parent budget takes only that", () => {
    expect(
      carveChildBudget({
        parent: ledger(),
        requested: undefined,
        agent: { tokens: 100, tool_calls: 4 },
        defaultShare: 0.5,
        now,
      }),
    ).toMatchObject({
      limits: { tokens: 100, model_calls: 5, tool_calls: 4 },
      reserve: { tokens: 100, model_calls: 5, tool_calls: 0 },
    });
    expect(
      carveChildBudget({ parent: undefined, requested: undefined, agent: undefined, defaultShare: 0.5, now }),
    ).toEqual({
      kind: 'granted',
      limits: {},
      deadline_at: null,
      reserve: zeroAmounts(),
    });
  });

  it('inherits the parent deadline and refuses more wall time than is left', () => {
    const parent = ledger({ limits: { wall_ms: 60_000 }, deadline_at: '2030-01-01T00:01:00.000Z' });
    expect(
      carveChildBudget({ parent, requested: undefined, agent: undefined, defaultShare: 0.5, now }),
    ).toMatchObject({
      deadline_at: '2030-01-01T00:01:00.000Z',
    });
    expect(
      carveChildBudget({ parent, requested: { wall_ms: 10_000 }, agent: undefined, defaultShare: 0.5, now }),
    ).toMatchObject({
      deadline_at: '2030-01-01T00:00:10.000Z',
      limits: { wall_ms: 10_000 },
    });
    expect(
      carveChildBudget({ parent, requested: { wall_ms: 61_000 }, agent: undefined, defaultShare: 0.5, now }),
    ).toMatchObject({ kind: 'refused', refusal: { dimension: 'wall_ms', limit: 60_000, spent: 0 } });
  });
});

describe('unusedReserve', () => {
  it('returns what the child neither used nor handed on, never more than was reserved', () => {
    const child = ledger({
      limits: { tokens: 500, model_calls: 5 },
      used: { tokens: 120, model_calls: 2, tool_calls: 3 },
      carved: { tokens: 80, model_calls: 1, tool_calls: 0 },
      reserved: { tokens: 500, model_calls: 0, tool_calls: 0 },
    });
    expect(unusedReserve(child)).toEqual({ tokens: 300, model_calls: 0, tool_calls: 0 });
  });
});

describe('narrowBudget', () => {
  it('takes the smaller of agent and request, and names a request above the agent', () => {
    expect(narrowBudget({ tokens: 100, model_calls: 5 }, { model_calls: 3, tool_calls: 7 })).toEqual({
      limits: { tokens: 100, model_calls: 3, tool_calls: 7 },
      issues: [],
    });
    expect(narrowBudget({ model_calls: 5 }, { model_calls: 6 }).issues).toEqual([
      { path: 'budget.model_calls', message: "At most the agent's budget of 5" },
    ]);
  });
});

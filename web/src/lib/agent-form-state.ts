import type {
  Agent,
  AgentConfig,
  AgentPatchBody,
  AgentVisibility,
  BudgetLimits,
  NewAgentBody,
} from '../api/types.ts';
import { parseSpecsText } from './build-report.ts';

export type AgentKind = 'agent' | 'subagent' | 'expert';

/** `config.budget` as typed in the editor: digits, or empty for no limit. */
export interface BudgetDraft {
  tokens: string;
  model_calls: string;
  tool_calls: string;
  wall_ms: string;
}

const BUDGET_KEYS = ['tokens', 'model_calls', 'tool_calls', 'wall_ms'] as const;

function budgetDraft(budget: BudgetLimits | undefined): BudgetDraft {
  const draft = { tokens: '', model_calls: '', tool_calls: '', wall_ms: '' };
  for (const key of BUDGET_KEYS) if (budget?.[key] !== undefined) draft[key] = String(budget[key]);
  return draft;
}

/** The budget the draft describes; a value that is not a whole number is sent as is for the API to refuse. */
export function budgetFromDraft(draft: BudgetDraft): BudgetLimits | undefined {
  const budget: BudgetLimits = {};
  for (const key of BUDGET_KEYS) {
    const text = draft[key].trim();
    if (text !== '') budget[key] = Number(text);
  }
  return Object.keys(budget).length > 0 ? budget : undefined;
}

export interface AgentFormState {
  name: string;
  slug: string;
  description: string;
  backend: 'chat' | 'subagent' | 'a2a';
  /** Backend `a2a`: the remote agent's card URL. */
  cardUrl: string;
  /** Backend `a2a`: the `authorization` header sent to the remote; comes back redacted once stored. */
  authorization: string;
  visibility: AgentVisibility;
  systemPrompt: string;
  model: string;
  tools: string[];
  subagents: string[];
  /** `config.skills`: skill names, for main agents and subagents alike. */
  skills: string[];
  approvalMode: '' | 'default' | 'always_trust';
  status: 'draft' | 'published';
  delegatable: boolean;
  delegationBrief: string;
  specsText: string;
  /** `config.knowledge_sources`: names of the sources the agent's `knowledge_search` reads. */
  knowledgeSources: string[];
  /** `config.budget` (docs/budgets.md). */
  budget: BudgetDraft;
}

export function emptyFormState(kind: AgentKind): AgentFormState {
  return {
    name: '',
    slug: '',
    description: '',
    backend: kind === 'subagent' ? 'subagent' : 'chat',
    cardUrl: '',
    authorization: '',
    visibility: 'private',
    systemPrompt: '',
    model: '',
    tools: [],
    subagents: [],
    skills: [],
    approvalMode: '',
    status: kind === 'expert' ? 'published' : 'draft',
    delegatable: true,
    delegationBrief: '',
    specsText: '',
    knowledgeSources: [],
    budget: budgetDraft(undefined),
  };
}

export function formStateFromAgent(agent: Agent): AgentFormState {
  const config = agent.config;
  return {
    name: agent.name,
    slug: agent.slug,
    description: agent.description,
    backend: agent.backend,
    cardUrl: config.a2a?.card_url ?? '',
    authorization: config.a2a?.headers?.authorization ?? '',
    visibility: agent.visibility,
    systemPrompt: config.system_prompt ?? '',
    model: config.model ?? '',
    tools: config.tools ?? [],
    subagents: config.subagents ?? [],
    skills: config.skills ?? [],
    approvalMode: config.tool_approval_mode ?? '',
    status: agent.status,
    delegatable: agent.delegatable,
    delegationBrief: agent.delegation_brief ?? '',
    specsText:
      config.subagent_specs && config.subagent_specs.length > 0
        ? JSON.stringify(config.subagent_specs, null, 2)
        : '',
    knowledgeSources: config.knowledge_sources ?? [],
    budget: budgetDraft(config.budget),
  };
}

/** Published main agents (local or remote) are experts; subagents never are. */
export function agentKind(agent: Pick<Agent, 'backend' | 'status'>): AgentKind {
  if (agent.backend === 'subagent') return 'subagent';
  return agent.status === 'published' ? 'expert' : 'agent';
}

/** `a, b  c` → `['a', 'b', 'c']`, de-duplicated, order kept. */
export function parseToolList(text: string): string[] {
  const seen = new Set<string>();
  for (const part of text.split(/[\s,]+/)) if (part !== '') seen.add(part);
  return [...seen];
}

function setOrDelete<K extends keyof AgentConfig>(
  config: AgentConfig,
  key: K,
  value: AgentConfig[K] | undefined,
): void {
  if (value === undefined) delete config[key];
  else config[key] = value;
}

/**
 * The config the form describes, on top of `base` (the stored config) so fields the form does not edit
 * (MCP servers, skills, limits…) survive an edit: the API replaces the whole config.
 */
export function configFromForm(
  state: AgentFormState,
  base: AgentConfig = {},
): { config: AgentConfig; specsError: string | null } {
  if (state.backend === 'a2a') return { config: remoteConfig(state, base), specsError: null };
  const config: AgentConfig = { ...base };
  setOrDelete(config, 'system_prompt', state.systemPrompt.trim() === '' ? undefined : state.systemPrompt);
  setOrDelete(config, 'model', state.model.trim() === '' ? undefined : state.model.trim());
  setOrDelete(
    config,
    'tools',
    state.tools.length === 0 ? (base.tools?.length === 0 ? [] : undefined) : state.tools,
  );
  setOrDelete(config, 'tool_approval_mode', state.approvalMode === '' ? undefined : state.approvalMode);
  const isChat = state.backend === 'chat';
  // Subagents cannot call subagents: the allow-list and inline specs belong to main agents only.
  setOrDelete(config, 'subagents', isChat && state.subagents.length > 0 ? state.subagents : undefined);
  setOrDelete(config, 'skills', state.skills.length > 0 ? state.skills : undefined);
  // Main agents and subagents alike: each searches only the sources of its own config.
  setOrDelete(
    config,
    'knowledge_sources',
    state.knowledgeSources.length > 0 ? state.knowledgeSources : undefined,
  );
  setOrDelete(config, 'budget', budgetFromDraft(state.budget));
  const { specs, error } = parseSpecsText(state.specsText);
  setOrDelete(
    config,
    'subagent_specs',
    isChat && specs !== undefined && specs.length > 0 ? specs : undefined,
  );
  return { config, specsError: isChat ? error : null };
}

/**
 * A remote expert's config: its card and credential. Other headers and the timeout of the stored config
 * are kept; the redacted credential a read showed is sent back as is, which keeps the stored value.
 */
function remoteConfig(state: AgentFormState, base: AgentConfig): AgentConfig {
  const headers = { ...base.a2a?.headers };
  if (state.authorization.trim() === '') delete headers.authorization;
  else headers.authorization = state.authorization.trim();
  return {
    a2a: {
      ...base.a2a,
      card_url: state.cardUrl.trim(),
      ...(Object.keys(headers).length > 0 ? { headers } : { headers: undefined }),
    },
  };
}

export function createBody(state: AgentFormState, config: AgentConfig): NewAgentBody {
  // Local and remote main agents may be experts; a subagent never is.
  const isChat = state.backend !== 'subagent';
  return {
    ...(state.slug.trim() === '' ? {} : { slug: state.slug.trim() }),
    name: state.name.trim(),
    description: state.description,
    backend: state.backend,
    is_subagent: state.backend === 'subagent',
    visibility: state.visibility,
    config,
    ...(isChat
      ? {
          status: state.status,
          delegatable: state.delegatable,
          delegation_brief: state.delegationBrief.trim() === '' ? null : state.delegationBrief,
        }
      : {}),
  };
}

export function patchBody(state: AgentFormState, config: AgentConfig): AgentPatchBody {
  const body = createBody(state, config);
  const { slug: _slug, backend: _backend, is_subagent: _isSubagent, ...patch } = body;
  return patch;
}

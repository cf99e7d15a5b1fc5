import type { Agent, AgentConfig, AgentPatchBody, AgentVisibility, NewAgentBody } from '../api/types.ts';
import { parseSpecsText } from './build-report.ts';

export type AgentKind = 'agent' | 'subagent' | 'expert';

export interface AgentFormState {
  name: string;
  slug: string;
  description: string;
  backend: 'chat' | 'subagent';
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
}

export function emptyFormState(kind: AgentKind): AgentFormState {
  return {
    name: '',
    slug: '',
    description: '',
    backend: kind === 'subagent' ? 'subagent' : 'chat',
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
  };
}

export function formStateFromAgent(agent: Agent): AgentFormState {
  const config = agent.config;
  return {
    name: agent.name,
    slug: agent.slug,
    description: agent.description,
    backend: agent.backend,
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
  };
}

/** Agents that are published chat agents are experts; subagents never are. */
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
  setOrDelete(config, 'knowledge_sources', state.knowledgeSources.length > 0 ? state.knowledgeSources : undefined);
  const { specs, error } = parseSpecsText(state.specsText);
  setOrDelete(
    config,
    'subagent_specs',
    isChat && specs !== undefined && specs.length > 0 ? specs : undefined,
  );
  return { config, specsError: isChat ? error : null };
}

export function createBody(state: AgentFormState, config: AgentConfig): NewAgentBody {
  const isChat = state.backend === 'chat';
  return {
    ...(state.slug.trim() === '' ? {} : { slug: state.slug.trim() }),
    name: state.name.trim(),
    description: state.description,
    backend: state.backend,
    is_subagent: !isChat,
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

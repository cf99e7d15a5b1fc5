/** A subagent the `task` tools can start: a built-in, or an inline spec that survived the builder. */
export interface ResolvedSubagent {
  name: string;
  description: string;
  system_prompt: string;
  /** Exact tool names, all from the parent's tool set; never a reserved tool. */
  tools: string[];
  /** `provider:model`; the parent's model when the spec names none. */
  model: string;
  source: 'builtin' | 'inline';
  /** Index in `config.subagent_specs`; null for built-ins. */
  spec_index: number | null;
  /** Skill names the spec selects (docs/skills-and-knowledge.md); absent when it selects none. Visibility is checked per run. */
  skills?: string[];
  /**
   * An earlier spec with the same name was dropped, so this one holds the name: without that drop it
   * would have been the duplicate. Only set when it happened.
   */
  replaces_dropped_spec_index?: number;
}

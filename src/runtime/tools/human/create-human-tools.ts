import type { Storage } from '../../../core/ports/storage.js';
import type { AnyTroupeTool } from '../../../core/tools/troupe-tool.js';
import { ASK_USER_QUESTION, createAskUserQuestionTool } from './ask-user-question-tool.js';
import { PRESENT_ARTIFACTS, createPresentArtifactsTool } from './present-artifacts-tool.js';

/** The catalogue tools that talk to the user; subagents never get them (docs/subagents.md, docs/runtime-tools.md). */
export const HUMAN_TOOL_NAMES = [ASK_USER_QUESTION, PRESENT_ARTIFACTS] as const;

/** `ask_user_question` and `present_artifacts`, selected by an agent's `config.tools` like any catalogue tool. */
export function createHumanTools(storage: Storage): AnyTroupeTool[] {
  return [createAskUserQuestionTool(storage), createPresentArtifactsTool(storage)];
}

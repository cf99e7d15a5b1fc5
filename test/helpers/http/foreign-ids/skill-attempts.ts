import type { ForeignIdAttempt } from './foreign-id-attempt.js';

/** Skills: by id and name, grants, visibility, installs from a foreign workdir. */
export const SKILL_ATTEMPTS: ForeignIdAttempt[] = [
  {
    name: 'get skill by id',
    method: 'GET',
    url: ({ mine }) => `/api/skills/${mine.skill.id}`,
    code: 'skill_not_found',
  },
  {
    name: 'get skill by name',
    method: 'GET',
    url: () => '/api/skills/alices-skill',
    code: 'skill_not_found',
  },
  {
    name: 'get shared skill',
    method: 'GET',
    url: ({ mine }) => `/api/skills/${mine.sharedSkill.id}`,
    code: 'skill_not_found',
  },
  {
    name: 'make a skill public',
    method: 'PATCH',
    url: ({ mine }) => `/api/skills/${mine.skill.id}`,
    body: () => ({ visibility: 'public' }),
    code: 'skill_not_found',
  },
  {
    name: 'delete skill',
    method: 'DELETE',
    url: ({ mine }) => `/api/skills/${mine.skill.id}`,
    code: 'skill_not_found',
  },
  {
    name: 'list skill grants',
    method: 'GET',
    url: ({ mine }) => `/api/skills/${mine.sharedSkill.id}/grants`,
    code: 'skill_not_found',
  },
  {
    name: 'grant myself a skill',
    method: 'POST',
    url: ({ mine }) => `/api/skills/${mine.sharedSkill.id}/grants`,
    body: ({ bob }) => ({ user_id: bob.user.id }),
    code: 'skill_not_found',
  },
  {
    name: 'revoke a skill grant',
    method: 'DELETE',
    url: ({ mine, alice }) => `/api/skills/${mine.sharedSkill.id}/grants/${alice.user.id}`,
    code: 'skill_not_found',
  },
  {
    name: 'install a skill from a foreign conversation',
    method: 'POST',
    url: () => '/api/skills',
    body: ({ mine }) => ({ from_workdir: { conversation_id: mine.conversation.id, path: '.' } }),
    code: 'conversation_not_found',
  },
  {
    name: 'install a skill from a foreign project',
    method: 'POST',
    url: () => '/api/skills',
    body: ({ mine }) => ({ from_workdir: { project_id: mine.project.id, path: '.' } }),
    code: 'project_not_found',
  },
];

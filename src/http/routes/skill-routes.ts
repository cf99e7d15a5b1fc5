import type { Context } from 'hono';
import { z } from 'zod';
import { TroupeError } from '../../core/errors.js';
import { AGENT_VISIBILITIES } from '../../core/records/agent.js';
import type { SavedSkill } from '../../runtime/skills/skill-service.js';
import type { AppDependencies } from '../app-dependencies.js';
import type { AppEnv } from '../app-env.js';
import { readJsonBody, readLimited } from '../body.js';
import { idParamsSchema } from '../id-params.js';
import type { RouteRegistry } from '../route-registry.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

const visibilitySchema = z.enum(AGENT_VISIBILITIES);

const uploadQuerySchema = z.object({
  visibility: visibilitySchema
    .optional()
    .describe('Visibility of a new skill (default private); for raw and multipart uploads'),
  replace: z.stringbool().default(false).describe('Publish a new version of your skill of the same name'),
});

const workdirFolderSchema = z
  .object({
    conversation_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('A conversation of yours: its project workdir'),
    project_id: z.string().min(1).max(200).optional().describe('A project of yours'),
    path: z.string().min(1).max(1000).describe('Folder in that workdir holding SKILL.md'),
  })
  .strict();

const fromWorkdirBodySchema = z
  .object({
    from_workdir: workdirFolderSchema,
    visibility: visibilitySchema.optional(),
    replace: z.boolean().optional(),
  })
  .strict();

const patchBodySchema = z.object({ visibility: visibilitySchema }).strict();
const grantBodySchema = z.object({ user_id: z.string().min(1).max(200) }).strict();
const grantParamsSchema = idParamsSchema.extend({
  user_id: z.string().min(1).max(200).describe('The user whose grant is revoked'),
});

/** Archive media types taken as raw bytes; the kind is then read from the magic bytes, not from this. */
const ARCHIVE_MEDIA_TYPES: ReadonlySet<string> = new Set([
  'application/zip',
  'application/x-zip-compressed',
  'application/gzip',
  'application/x-gzip',
  'application/x-tar+gzip',
  'application/x-compressed-tar',
  'application/octet-stream',
]);
/** Room for multipart boundaries and part headers on top of the archive itself. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

function mediaTypeOf(c: Context<AppEnv>): string {
  return (c.req.header('content-type')?.split(';')[0] ?? '').trim().toLowerCase();
}

async function multipartArchive(c: Context<AppEnv>, maxBytes: number): Promise<Uint8Array> {
  const bytes = await readLimited(c.req.raw, maxBytes + MULTIPART_OVERHEAD_BYTES);
  let form: FormData;
  try {
    form = await new Response(bytes, {
      headers: { 'content-type': c.req.header('content-type') ?? '' },
    }).formData();
  } catch {
    throw new TroupeError('validation_failed', 'The multipart body could not be parsed');
  }
  const file = form.get('file');
  if (file === null || typeof file === 'string') {
    throw new TroupeError(
      'validation_failed',
      'The multipart body needs a "file" part holding the .zip or .tar.gz archive',
    );
  }
  return new Uint8Array(await file.arrayBuffer());
}

/** Skills (docs/skills-and-knowledge.md): upload, list, read, change visibility, delete, and access grants like agents'. */
export function registerSkillRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  const { skills } = deps;
  const limits = deps.config.skillLimits;
  const saved = (c: Context<AppEnv>, result: SavedSkill) =>
    c.json({ skill: result.skill, files: result.files }, result.created ? 201 : 200);

  registry.add({
    method: 'get',
    path: '/api/skills',

    response: RESPONSES.skills,
    summary: 'Skills I can use (mine, granted, public; admins all)',
    tag: 'skills',
    access: 'user',
    handler: async ({ c, actor }) => c.json({ skills: await skills.list(actor) }),
  });

  registry.add({
    method: 'post',
    path: '/api/skills',
    errors: ['skill_name_taken', 'skill_invalid', 'skill_too_large'],

    response: RESPONSES.savedSkill,
    summary:
      'Create a skill from a .zip/.tar.gz archive (raw body or multipart "file") or from a workdir folder (JSON)',
    description:
      'The archive holds SKILL.md (front matter name and description) at its root or in its one top folder. ' +
      'Refused: paths with "..", absolute paths, drive letters or backslashes, links and special files, more ' +
      'files or bytes than the skill limits. Answers 201 for a new skill, 200 for a new version (replace=true).',
    tag: 'skills',
    access: 'user',
    status: 201,
    query: uploadQuerySchema,
    rawBody: {
      'application/json': fromWorkdirBodySchema,
      'application/zip': 'binary',
      'application/gzip': 'binary',
      'application/octet-stream': 'binary',
      'multipart/form-data': 'multipart',
    },
    handler: async ({ c, actor, query }) => {
      const mediaType = mediaTypeOf(c);
      if (mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType)) {
        const body = await readJsonBody(c, fromWorkdirBodySchema, deps.config.maxBodyBytes);
        const options = {
          visibility: body.visibility ?? query.visibility,
          replace: body.replace ?? query.replace,
        };
        return saved(c, await skills.createFromWorkdir(actor, body.from_workdir, options));
      }
      let archive: Uint8Array;
      if (mediaType === 'multipart/form-data') archive = await multipartArchive(c, limits.maxArchiveBytes);
      else if (ARCHIVE_MEDIA_TYPES.has(mediaType))
        archive = await readLimited(c.req.raw, limits.maxArchiveBytes);
      else {
        throw new TroupeError(
          'unsupported_media_type',
          'Send a .zip or .tar.gz archive (application/zip, application/gzip, application/octet-stream or multipart/form-data), or JSON {"from_workdir": {...}}',
        );
      }
      return saved(
        c,
        await skills.createFromArchive(actor, archive, {
          visibility: query.visibility,
          replace: query.replace,
        }),
      );
    },
  });

  registry.add({
    method: 'get',
    path: '/api/skills/{id}',

    response: RESPONSES.skillWithFiles,
    summary: 'One skill by id or name: metadata, file list and SKILL.md',
    tag: 'skills',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => c.json(await skills.get(actor, params.id)),
  });

  registry.add({
    method: 'patch',
    path: '/api/skills/{id}',

    response: RESPONSES.skill,
    summary: "Change a skill's visibility (owner or admin)",
    tag: 'skills',
    access: 'user',
    params: idParamsSchema,
    body: patchBodySchema,
    handler: async ({ c, actor, params, body }) =>
      c.json({ skill: await skills.setVisibility(actor, params.id, body.visibility) }),
  });

  registry.add({
    method: 'delete',
    path: '/api/skills/{id}',
    summary: 'Delete a skill (owner or admin); its name stays reserved for its owner',
    tag: 'skills',
    access: 'user',
    status: 204,
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => {
      await skills.delete(actor, params.id);
      return c.body(null, 204);
    },
  });

  registry.add({
    method: 'get',
    path: '/api/skills/{id}/grants',

    response: RESPONSES.skillGrants,
    summary: 'Who holds an access grant on a skill (owner or admin)',
    tag: 'skills',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => c.json({ grants: await skills.listGrants(actor, params.id) }),
  });

  registry.add({
    method: 'post',
    path: '/api/skills/{id}/grants',

    response: RESPONSES.skillGrant,
    summary: 'Grant a user access to a skill (admins always; owners on shared skills)',
    description: 'Answers 201 with the new grant, or 200 with the existing one.',
    tag: 'skills',
    access: 'user',
    status: 201,
    params: idParamsSchema,
    body: grantBodySchema,
    handler: async ({ c, actor, params, body }) => {
      const { grant, created } = await skills.grant(actor, params.id, body.user_id);
      return c.json({ grant }, created ? 201 : 200);
    },
  });

  registry.add({
    method: 'delete',
    path: '/api/skills/{id}/grants/{user_id}',
    summary: "Revoke a user's access to a skill (admins always; owners on shared skills)",
    tag: 'skills',
    access: 'user',
    status: 204,
    params: grantParamsSchema,
    handler: async ({ c, actor, params }) => {
      await skills.revokeGrant(actor, params.id, params.user_id);
      return c.body(null, 204);
    },
  });
}

import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { TroupeError } from '../core/errors.js';
import { AGENT_VISIBILITIES, type AgentVisibility } from '../core/records/agent.js';
import { citation } from '../runtime/knowledge/format-knowledge-hits.js';
import type { UploadedFile } from '../runtime/knowledge/prepare-knowledge-upload.js';
import { findUser } from './find-user.js';
import { CliUsageError, withTroupe, type CliDeps } from './cli-support.js';

export const KNOWLEDGE_USAGE = `knowledge list | create NAME [--description TEXT] [--visibility private|shared|public]
                          | add SOURCE FILE... | docs SOURCE | search SOURCE QUERY [--top-k N] [--json] | delete SOURCE
                          (all with [--user NAME], default demo)`;

async function readFiles(files: readonly string[], maxBytes: number): Promise<UploadedFile[]> {
  let total = 0;
  const uploads: UploadedFile[] = [];
  for (const file of files) {
    total += (await stat(file)).size;
    // Checked before reading: the same bound as an HTTP upload of these files together.
    if (total > maxBytes) {
      throw new TroupeError(
        'payload_too_large',
        `The files add up to more than ${maxBytes} bytes (TROUPE_KNOWLEDGE_MAX_UPLOAD_BYTES)`,
      );
    }
    uploads.push({ name: path.basename(file), bytes: new Uint8Array(await readFile(file)) });
  }
  return uploads;
}

type Action = 'list' | 'create' | 'add' | 'docs' | 'delete' | 'search';

/** Each action and whether its positional arguments fit: [SOURCE or NAME given, further arguments given]. */
const SHAPES: Record<Action, { target: boolean; rest: boolean; usage: string }> = {
  list: { target: false, rest: false, usage: 'list takes no argument' },
  create: { target: true, rest: false, usage: 'create takes NAME' },
  add: { target: true, rest: true, usage: 'add takes SOURCE FILE...' },
  docs: { target: true, rest: false, usage: 'docs takes SOURCE' },
  delete: { target: true, rest: false, usage: 'delete takes SOURCE' },
  search: { target: true, rest: true, usage: 'search takes SOURCE QUERY' },
};

function checkUsage(
  action: string | undefined,
  target: string | undefined,
  rest: string[],
  visibility: string,
): Action {
  if (action === undefined || !Object.hasOwn(SHAPES, action))
    throw new CliUsageError(`knowledge takes ${KNOWLEDGE_USAGE}`);
  const shape = SHAPES[action as Action];
  if ((target !== undefined) !== shape.target || rest.length > 0 !== shape.rest)
    throw new CliUsageError(`knowledge ${shape.usage}`);
  if (action === 'create' && !(AGENT_VISIBILITIES as readonly string[]).includes(visibility)) {
    throw new CliUsageError('knowledge create --visibility must be private, shared or public');
  }
  return action as Action;
}

/** `troupe knowledge …`: manage knowledge sources and try searches, in this process (no server needed). */
export function knowledgeCommand(deps: CliDeps, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      user: { type: 'string', default: 'demo' },
      description: { type: 'string', default: '' },
      visibility: { type: 'string', default: 'private' },
      'top-k': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [first, target, ...rest] = positionals;
  const action = checkUsage(first, target, rest, values.visibility);
  const topK = values['top-k'] === undefined ? undefined : Number(values['top-k']);
  if (topK !== undefined && !Number.isInteger(topK)) throw new CliUsageError('--top-k must be an integer');
  const source = target ?? '';
  return withTroupe(deps, 'api', async (troupe) => {
    const user = await findUser(troupe, values.user);
    const { knowledge } = troupe;
    switch (action) {
      case 'list':
        for (const entry of await knowledge.list(user)) {
          console.log(
            `${entry.id}\t${entry.name}\t${entry.visibility}\t${entry.document_count} documents\t${entry.chunk_count} chunks`,
          );
        }
        return 0;
      case 'create': {
        const visibility = values.visibility as AgentVisibility;
        const created = await knowledge.create(user, {
          name: source,
          description: values.description,
          visibility,
        });
        console.log(`Created knowledge source ${created.name} (${created.id}, ${created.visibility}).`);
        return 0;
      }
      case 'add': {
        const files = await readFiles(rest, knowledge.limits.maxUploadBytes);
        for (const { document, replaced } of await knowledge.addDocuments(user, source, files)) {
          const pages = document.page_count === null ? '' : `, ${document.page_count} pages`;
          const chunks = `${document.chunk_count} chunk${document.chunk_count === 1 ? '' : 's'}`;
          console.log(
            `${replaced ? 'Replaced' : 'Added'} ${document.name} (${document.media_type}${pages}): ${chunks}.`,
          );
        }
        return 0;
      }
      case 'docs':
        for (const document of await knowledge.listDocuments(user, source)) {
          console.log(
            `${document.id}\t${document.name}\t${document.media_type}\t${document.bytes} bytes\t${document.chunk_count} chunks`,
          );
        }
        return 0;
      case 'delete':
        await knowledge.delete(user, source);
        console.log(`Deleted knowledge source ${source}.`);
        return 0;
      case 'search': {
        const query = rest.join(' ');
        const result = await knowledge.search(user, source, {
          query,
          ...(topK === undefined ? {} : { top_k: topK }),
        });
        if (values.json) {
          console.log(JSON.stringify(result.results, null, 2));
          return 0;
        }
        if (result.results.length === 0) console.log(`No passage matches "${query}".`);
        result.results.forEach((hit, index) => {
          console.log(
            `[${index + 1}] ${citation(hit)}  (chars ${hit.location.start}-${hit.location.end}, score ${hit.score.toFixed(2)})`,
          );
          console.log(`    ${hit.text.replace(/\s+/g, ' ').slice(0, 300)}`);
        });
        return 0;
      }
    }
  });
}

import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { chunkText } from '../../core/knowledge/chunk-text.js';
import type { Storage } from '../../core/ports/storage.js';
import type { KnowledgeSource } from '../../core/records/knowledge.js';

export const DEMO_KNOWLEDGE_SOURCE = 'ops-handbook';

/** The Markdown files shipped in `demo/knowledge/` (the same depth from `src/` and from `dist/`). */
const DEMO_KNOWLEDGE_DIR = path.resolve(import.meta.dirname, '../../../demo/knowledge');

/**
 * Creates the demo knowledge source from `demo/knowledge/*.md`, inside the caller's transaction. Without the
 * folder (an install that left the demo out) there is nothing to seed.
 */
export async function seedDemoKnowledge(
  tx: Storage,
  ownerId: string,
  dir = DEMO_KNOWLEDGE_DIR,
): Promise<KnowledgeSource | undefined> {
  if (!existsSync(dir)) return undefined;
  const source = await tx.knowledgeSources.create({
    name: DEMO_KNOWLEDGE_SOURCE,
    description: 'Troupe operations handbook (demo): deployment, security and tokens, backups, incidents.',
    owner_id: ownerId,
    visibility: 'public',
  });
  await tx.grants.grant('knowledge_source', ownerId, source.id, 'created');
  const files = (await readdir(dir)).filter((file) => file.endsWith('.md')).sort();
  for (const file of files) {
    const text = (await readFile(path.join(dir, file), 'utf8')).replace(/\r\n?/g, '\n');
    await tx.knowledgeDocuments.put(
      {
        source_id: source.id,
        name: file,
        media_type: 'text/markdown',
        bytes: Buffer.byteLength(text),
        text_chars: text.length,
        page_count: null,
      },
      chunkText(text, { markdown: true }),
    );
  }
  return source;
}

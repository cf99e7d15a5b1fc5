import type { Troupe } from '../../src/create-troupe.js';
import { listen } from '../../src/listen-troupe.js';
import { makePdfWithStream, zerosZlibStream } from '../../test/helpers/knowledge/make-pdf.js';
import { round, roundSummary, summarize, type Summary } from './stats.js';

export interface BombUploadResult {
  bomb_bytes: number;
  bomb_inflated_mib: number;
  upload_status: number;
  upload_code: string;
  upload_ms: number;
  /** `GET /api/me` of another user, one after another, with nothing else running. */
  me_idle_ms: Summary;
  /** The same, while the bomb upload is being read. */
  me_during_bomb_ms: Summary;
  peak_rss_growth_mib: number;
}

async function timedMe(url: string, token: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}/api/me`, { headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET /api/me answered ${response.status}`);
  return performance.now() - started;
}

/**
 * Whether a PDF decompression bomb stalls other users (issue 31): over real HTTP on loopback, one member
 * uploads a 0.5 MiB PDF whose content stream inflates to 512 MiB, while another user calls `GET /api/me`
 * back to back; the latencies are compared with the same calls on an idle server, and the process's
 * resident memory is sampled between calls.
 */
export async function measureBombUpload(troupe: Troupe, idleSamples: number): Promise<BombUploadResult> {
  const server = await listen(troupe);
  try {
    const { storage, auth } = troupe;
    const uploader = await storage.users.create({ name: 'bomber', role: 'member' });
    const reader = await storage.users.create({ name: 'bystander', role: 'member' });
    const uploaderToken = (await auth.issueToken(uploader.id, 'bench')).token;
    const readerToken = (await auth.issueToken(reader.id, 'bench')).token;
    await troupe.knowledge.create(uploader, { name: 'bomb-target' });

    const idle: number[] = [];
    for (let index = 0; index < idleSamples; index += 1) idle.push(await timedMe(server.url, readerToken));

    const inflatedMib = 512;
    const bomb = makePdfWithStream(zerosZlibStream(inflatedMib));
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(bomb)], { type: 'application/pdf' }), 'bomb.pdf');
    const rssBefore = process.memoryUsage.rss();
    let peakRss = rssBefore;
    let done = false;
    const started = performance.now();
    const upload = fetch(`${server.url}/api/knowledge/bomb-target/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${uploaderToken}` },
      body: form,
    }).then(async (response) => {
      const body = (await response.json()) as { error?: { code?: string } };
      done = true;
      return { status: response.status, code: body.error?.code ?? '', ms: performance.now() - started };
    });
    const during: number[] = [];
    while (!done) {
      const ms = await timedMe(server.url, readerToken);
      if (!done) during.push(ms);
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }
    const answer = await upload;
    return {
      bomb_bytes: bomb.byteLength,
      bomb_inflated_mib: inflatedMib,
      upload_status: answer.status,
      upload_code: answer.code,
      upload_ms: round(answer.ms),
      me_idle_ms: roundSummary(summarize(idle)),
      me_during_bomb_ms: roundSummary(summarize(during)),
      peak_rss_growth_mib: round((peakRss - rssBefore) / 1024 / 1024),
    };
  } finally {
    await server.close();
  }
}

import type { Storage } from '../../core/ports/storage.js';
import { foldRunTimelineEvents } from '../../core/trace/fold-run-timeline.js';
import { emptyTimeline, type RunTimeline } from '../../core/trace/run-timeline.js';

const EVENT_PAGE = 1000;

/** A run's timeline folded from its stored events, read a page at a time. */
export async function readRunTimeline(storage: Storage, runId: string): Promise<RunTimeline> {
  let timeline = emptyTimeline();
  for (;;) {
    const page = await storage.events.list(runId, timeline.last_seq, EVENT_PAGE);
    timeline = foldRunTimelineEvents(page, timeline);
    if (page.length < EVENT_PAGE) return timeline;
  }
}

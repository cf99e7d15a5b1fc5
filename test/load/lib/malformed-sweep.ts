import type { TestServer } from '../../helpers/start-test-server.js';
import { buildProbes } from './build-probes.js';
import type { OpenApiOperation } from './openapi-operation.js';
import { FAKE_ID, type Probe } from './probe.js';
import { sendProbe, type ProbeStatus } from './send-probe.js';
import type { SweepOptions } from './sweep-options.js';

// The load script's fixture names the options through the sweep it configures.

/**
 * Malformed input against every operation that `/api/openapi.json` lists, over real HTTP: missing and
 * invalid tokens, bad path ids, bad query values, malformed / wrongly typed / oversized / deeply nested
 * bodies, wrong media types and methods. The only expectation is the sweep's point: no 5xx, no dropped
 * connection, no hang.
 */

export interface SweepFinding {
  method: string;
  path: string;
  variant: string;
  status: ProbeStatus;
  body: string;
}

export interface SweepReport {
  operations: number;
  requests: number;
  byStatus: Record<string, number>;
  /** Every 5xx, dropped connection or timeout: should be empty. */
  findings: SweepFinding[];
  /** Requests re-sent once after a network error (a keep-alive socket the server closed as it was reused). */
  retried: number;
}

/** Statuses the server may legitimately answer malformed input with when it closes the connection early. */
function acceptable(probe: Probe, result: { status: ProbeStatus }): boolean {
  if (typeof result.status === 'number') return result.status < 500;
  // An oversized body may be refused before the client finished sending it; the connection then closes.
  return result.status === 'network error' && probe.variant.startsWith('body: over the limit');
}

export async function sweepEndpoints(server: TestServer, options: SweepOptions): Promise<SweepReport> {
  const documentResponse = await fetch(`${server.url}/api/openapi.json`);
  const document = (await documentResponse.json()) as {
    paths: Record<string, Record<string, OpenApiOperation>>;
  };
  const jobs: { path: string; probe: Probe }[] = [];
  let operations = 0;
  for (const [path, methods] of Object.entries(document.paths)) {
    const declared = Object.keys(methods).map((method) => method.toUpperCase());
    for (const [method, operation] of Object.entries(methods)) {
      operations += 1;
      for (const probe of buildProbes(server, method, path, operation, options)) jobs.push({ path, probe });
    }
    // A method the path does not serve.
    const undeclared = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'].find((method) => !declared.includes(method));
    if (undeclared) {
      jobs.push({
        path,
        probe: {
          variant: `undeclared method ${undeclared}`,
          method: undeclared,
          url: path.replace(/\{[^}]+\}/g, FAKE_ID),
          headers: { authorization: `Bearer ${server.token}` },
        },
      });
    }
  }

  const byStatus: Record<string, number> = {};
  const findings: SweepFinding[] = [];
  let next = 0;
  let retried = 0;
  const worker = async () => {
    for (let job = jobs[next++]; job; job = jobs[next++]) {
      let result = await sendProbe(server, job.probe, options.timeoutMs ?? 15_000);
      // A pooled keep-alive socket can be closed by the server just as it is reused; a real fault repeats.
      if (
        result.status === 'network error' &&
        !acceptable(job.probe, result) &&
        !(job.probe.body instanceof ReadableStream)
      ) {
        retried += 1;
        result = await sendProbe(server, job.probe, options.timeoutMs ?? 15_000);
      }
      byStatus[String(result.status)] = (byStatus[String(result.status)] ?? 0) + 1;
      if (!acceptable(job.probe, result)) {
        findings.push({
          method: job.probe.method,
          path: job.path,
          variant: job.probe.variant,
          status: result.status,
          body: result.body,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  return { operations, requests: jobs.length, byStatus, findings, retried };
}

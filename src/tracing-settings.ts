import { TroupeError } from './core/errors.js';

/** Where OpenTelemetry GenAI traces go (README "Tracing (OpenTelemetry)"); absent means tracing is off. */
export interface TracingSettings {
  /** The full OTLP/HTTP traces URL, e.g. `http://collector:4318/v1/traces`. */
  endpoint: string;
  /** Sent with every export (collector or vendor credentials). */
  headers: Record<string, string>;
  /** `service.name` of the exported resource. */
  serviceName: string;
  /** The other attributes of the exported resource (`OTEL_RESOURCE_ATTRIBUTES`). */
  resourceAttributes: Record<string, string>;
  /** The OTLP/HTTP body encoding: protobuf when asked for, JSON otherwise. */
  protocol: OtlpProtocol;
}

export type OtlpProtocol = 'http/json' | 'http/protobuf';

type Env = Record<string, string | undefined>;

function set(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * `key1=value1,key2=value2` with URL-encoded values, as the OTLP exporter specification defines headers and
 * the resource SDK `OTEL_RESOURCE_ATTRIBUTES`.
 */
function parseKeyValues(env: Env, name: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of (set(env, name) ?? '').split(',')) {
    if (entry.trim() === '') continue;
    const equals = entry.indexOf('=');
    const key = equals > 0 ? entry.slice(0, equals).trim() : '';
    if (key === '')
      throw new TroupeError('config_invalid', `${name} entries must be key=value, got "${entry.trim()}"`);
    let value = entry.slice(equals + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      throw new TroupeError('config_invalid', `${name}: the value of "${key}" is not valid URL encoding`);
    }
    headers[key] = value;
  }
  return headers;
}

function checkUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TroupeError('config_invalid', `${name} must be an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TroupeError('config_invalid', `${name} must be an http(s) URL, got "${value}"`);
  }
  return value;
}

/** The signal-specific endpoint is used as is; the generic one gets `/v1/traces` appended (OTLP spec). */
function tracesEndpoint(env: Env): string | undefined {
  const specific = set(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (specific !== undefined) return checkUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', specific);
  const base = set(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (base === undefined) return undefined;
  checkUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base);
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Tracing is on only when an OTLP endpoint is configured, and `OTEL_SDK_DISABLED=true` or an
 * `OTEL_TRACES_EXPORTER` without `otlp` turns it off again. Only OTLP over HTTP is spoken, protobuf when
 * the protocol variables ask for it, JSON otherwise; `grpc` is refused rather than sent to the wrong port.
 */
export function loadTracingSettings(env: Env): TracingSettings | undefined {
  const endpoint = tracesEndpoint(env);
  if (endpoint === undefined) return undefined;
  if (set(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const exporters = set(env, 'OTEL_TRACES_EXPORTER');
  if (exporters !== undefined && !exporters.split(',').some((entry) => entry.trim() === 'otlp'))
    return undefined;
  const protocol = set(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? set(env, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol !== undefined && protocol !== 'http/json' && protocol !== 'http/protobuf') {
    throw new TroupeError(
      'config_invalid',
      `OTLP protocol "${protocol}" is not supported: Troupe exports traces over OTLP/HTTP (http/protobuf or http/json); point the endpoint at the collector's HTTP port (4318)`,
    );
  }
  const resourceAttributes = parseKeyValues(env, 'OTEL_RESOURCE_ATTRIBUTES');
  return {
    endpoint,
    headers: {
      ...parseKeyValues(env, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...parseKeyValues(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    },
    // OTEL_SERVICE_NAME wins over a service.name among the resource attributes, as the SDKs do.
    serviceName: set(env, 'OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'] ?? 'troupe',
    resourceAttributes,
    protocol: protocol === 'http/protobuf' ? 'http/protobuf' : 'http/json',
  };
}

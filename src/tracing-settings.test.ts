import { describe, expect, it } from 'vitest';
import { isTroupeError } from './core/errors.js';
import { loadConfig } from './config.js';
import { loadTracingSettings } from './tracing-settings.js';

function configError(env: Record<string, string>): string {
  try {
    loadTracingSettings(env);
  } catch (error) {
    if (isTroupeError(error, 'config_invalid')) return error.message;
    throw error;
  }
  throw new Error('expected config_invalid');
}

describe('tracing settings from the standard OTLP variables', () => {
  it('is off without an endpoint', () => {
    expect(loadTracingSettings({})).toBeUndefined();
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(
      loadTracingSettings({ OTEL_EXPORTER_OTLP_HEADERS: 'a=b', OTEL_SERVICE_NAME: 'x' }),
    ).toBeUndefined();
  });

  it('appends /v1/traces to the generic endpoint and takes the traces endpoint as is', () => {
    expect(loadTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      endpoint: 'http://collector:4318/v1/traces',
      headers: {},
      serviceName: 'troupe',
      resourceAttributes: {},
      protocol: 'http/json',
    });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://vendor.example/otlp/traces',
      }).tracing?.endpoint,
    ).toBe('https://vendor.example/otlp/traces');
  });

  it('reads URL-encoded headers; the traces-specific ones win', () => {
    const settings = loadTracingSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-team=core',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=agents',
      OTEL_SERVICE_NAME: 'troupe-prod',
    });
    expect(settings).toEqual({
      endpoint: 'http://collector:4318/v1/traces',
      headers: { authorization: 'Bearer abc', 'x-team': 'agents' },
      serviceName: 'troupe-prod',
      resourceAttributes: {},
      protocol: 'http/json',
    });
  });

  it('reads OTEL_RESOURCE_ATTRIBUTES, with OTEL_SERVICE_NAME winning over its service.name', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    const settings = loadTracingSettings({
      ...endpoint,
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=from-attributes,team=a%20b',
    });
    expect(settings).toMatchObject({
      serviceName: 'from-attributes',
      resourceAttributes: {
        'deployment.environment': 'prod',
        'service.name': 'from-attributes',
        team: 'a b',
      },
    });
    expect(
      loadTracingSettings({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: 'service.name=x', OTEL_SERVICE_NAME: 'y' })
        ?.serviceName,
    ).toBe('y');
    expect(configError({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: 'broken' })).toContain(
      'OTEL_RESOURCE_ATTRIBUTES',
    );
  });

  it('sends protobuf when a protocol variable asks for it, the traces-specific one first', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadTracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })?.protocol).toBe(
      'http/protobuf',
    );
    expect(
      loadTracingSettings({
        ...endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      })?.protocol,
    ).toBe('http/json');
    expect(
      loadTracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })?.protocol,
    ).toBe('http/protobuf');
  });

  it('honours OTEL_SDK_DISABLED and an OTEL_TRACES_EXPORTER without otlp', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadTracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(loadTracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(loadTracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'console,otlp' })?.endpoint).toBe(
      'http://collector:4318/v1/traces',
    );
  });

  it('refuses what it cannot honour', () => {
    expect(configError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toContain(
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    );
    expect(configError({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://collector' })).toContain('http(s) URL');
    expect(
      configError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    ).toContain('grpc');
    expect(
      configError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }),
    ).toContain('key=value');
  });
});

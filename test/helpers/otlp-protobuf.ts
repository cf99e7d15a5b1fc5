/**
 * Decodes an OTLP `ExportTraceServiceRequest` in protobuf wire format into the JSON shape of OTLP/HTTP
 * JSON (ids as hex), for a test receiver. The field numbers are those of opentelemetry-proto
 * (`collector/trace/v1/trace_service.proto`, `trace/v1/trace.proto`, `common/v1/common.proto`,
 * `resource/v1/resource.proto`); fields a test does not read are skipped by their wire type.
 */

export interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string; boolValue?: boolean; doubleValue?: number };
}

export interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: OtlpAttribute[];
}

export interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

interface Field {
  number: number;
  varint?: bigint;
  bytes?: Uint8Array;
  fixed?: Uint8Array;
}

/** The fields of one message, in order (repeated fields appear once per element). */
function fields(buffer: Uint8Array): Field[] {
  const result: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buffer[at++];
      if (byte === undefined) throw new Error('truncated varint');
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  while (at < buffer.length) {
    const tag = Number(varint());
    const number = tag >>> 3;
    switch (tag & 7) {
      case 0:
        result.push({ number, varint: varint() });
        break;
      case 1:
        result.push({ number, fixed: buffer.subarray(at, at + 8) });
        at += 8;
        break;
      case 2: {
        const length = Number(varint());
        result.push({ number, bytes: buffer.subarray(at, at + length) });
        at += length;
        break;
      }
      case 5:
        result.push({ number, fixed: buffer.subarray(at, at + 4) });
        at += 4;
        break;
      default:
        throw new Error(`unsupported wire type ${tag & 7}`);
    }
  }
  return result;
}

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes ?? new Uint8Array());
const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('hex');
const messages = (all: Field[], number: number) =>
  all
    .filter((field) => field.number === number && field.bytes)
    .map((field) => fields(field.bytes ?? new Uint8Array()));

function anyValue(all: Field[]): OtlpAttribute['value'] {
  const [field] = all;
  if (field?.number === 1) return { stringValue: text(field.bytes) };
  if (field?.number === 2) return { boolValue: field.varint === 1n };
  if (field?.number === 3) return { intValue: BigInt.asIntN(64, field.varint ?? 0n).toString() };
  if (field?.number === 4 && field.fixed) return { doubleValue: Buffer.from(field.fixed).readDoubleLE(0) };
  return {};
}

function attributes(all: Field[], number: number): OtlpAttribute[] {
  return messages(all, number).map((keyValue) => ({
    key: text(keyValue.find((field) => field.number === 1)?.bytes),
    value: anyValue(messages(keyValue, 2)[0] ?? []),
  }));
}

function span(all: Field[]): OtlpSpan {
  const bytesOf = (number: number) => all.find((field) => field.number === number)?.bytes;
  const parent = bytesOf(4);
  return {
    traceId: hex(bytesOf(1)),
    spanId: hex(bytesOf(2)),
    ...(parent && parent.length > 0 ? { parentSpanId: hex(parent) } : {}),
    name: text(bytesOf(5)),
    attributes: attributes(all, 9),
  };
}

export function decodeTraceRequest(body: Uint8Array): OtlpTraces {
  return {
    resourceSpans: messages(fields(body), 1).map((resourceSpans) => ({
      resource: { attributes: attributes(messages(resourceSpans, 1)[0] ?? [], 1) },
      scopeSpans: messages(resourceSpans, 2).map((scopeSpans) => ({
        spans: messages(scopeSpans, 2).map(span),
      })),
    })),
  };
}

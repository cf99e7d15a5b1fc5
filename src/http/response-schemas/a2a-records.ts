import { z } from 'zod';
import { RESPONSE_SCHEMAS } from './records.js';

/**
 * The bodies of the A2A routes, closed like the API's own. A2A objects are
 * ProtoJSON: fields at their default value (false, '', empty lists) are left out, so most are optional.
 * `metadata` maps are free-form by the protocol's definition (a protobuf Struct).
 */
const freeForm = (description: string) => z.record(z.string(), z.unknown()).describe(description);

// --- A2A 1.0 (ProtoJSON) -------------------------------------------------------------------------------

const metadata = freeForm('Free-form (a protobuf Struct)').optional();

const part = z.strictObject({
  text: z.string().optional(),
  data: z.unknown().optional(),
  raw: z.string().optional(),
  url: z.string().optional(),
  metadata,
  filename: z.string().optional(),
  mediaType: z.string().optional(),
});

const message = z.strictObject({
  messageId: z.string(),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  role: z.enum(['ROLE_USER', 'ROLE_AGENT']),
  parts: z.array(part).optional(),
  metadata,
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});

const taskStatus = z.strictObject({
  state: z.string().describe('TASK_STATE_*'),
  message: message.optional(),
  timestamp: z.string().optional(),
});

const artifact = z.strictObject({
  artifactId: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(part).optional(),
  metadata,
  extensions: z.array(z.string()).optional(),
});

export const a2aTaskSchema = z
  .strictObject({
    id: z.string().describe('The run id'),
    contextId: z.string().describe('The conversation id'),
    status: taskStatus,
    artifacts: z.array(artifact).optional(),
    history: z.array(message).optional(),
    metadata: freeForm('`troupe` (run status, usage…) and the delegation extension key (usage)').optional(),
  })
  .register(RESPONSE_SCHEMAS, { id: 'A2ATask' });

const listTasks = z.strictObject({
  tasks: z.array(a2aTaskSchema).optional(),
  nextPageToken: z.string().optional(),
  pageSize: z.number().int(),
  totalSize: z.number().int().optional(),
});

const extension = z.strictObject({
  uri: z.string(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  params: freeForm('Extension parameters (the experts extension lists each expert)').optional(),
});

const skill = z.strictObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()),
  outputModes: z.array(z.string()),
});

export const agentCardSchema = z
  .strictObject({
    name: z.string(),
    description: z.string(),
    supportedInterfaces: z.array(
      z.strictObject({
        url: z.string(),
        protocolBinding: z.literal('JSONRPC'),
        protocolVersion: z.enum(['1.0', '0.3']),
        tenant: z.string().optional(),
      }),
    ),
    provider: z.strictObject({ url: z.string(), organization: z.string() }),
    version: z.string(),
    capabilities: z.strictObject({
      streaming: z.boolean(),
      pushNotifications: z.boolean().optional(),
      extensions: z.array(extension),
      extendedAgentCard: z.boolean().optional(),
    }),
    securitySchemes: z.strictObject({
      troupe_token: z.strictObject({
        httpAuthSecurityScheme: z.strictObject({
          description: z.string(),
          scheme: z.literal('Bearer'),
          bearerFormat: z.string(),
        }),
      }),
    }),
    securityRequirements: z.array(
      z.strictObject({ schemes: z.strictObject({ troupe_token: z.strictObject({}) }) }),
    ),
    defaultInputModes: z.array(z.string()),
    defaultOutputModes: z.array(z.string()),
    skills: z.array(skill),
  })
  .register(RESPONSE_SCHEMAS, { id: 'AgentCard' });

const statusUpdate = z.strictObject({
  taskId: z.string(),
  contextId: z.string(),
  status: taskStatus,
  metadata,
});
const artifactUpdate = z.strictObject({
  taskId: z.string(),
  contextId: z.string(),
  artifact,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata,
});

// --- A2A 0.3 (the names `message/send`, `tasks/get`…) --------------------------------------------------

const legacyPart = z.union([
  z.strictObject({ kind: z.literal('text'), text: z.string(), metadata }),
  z.strictObject({ kind: z.literal('data'), data: freeForm('A JSON object'), metadata }),
]);
const legacyMessage = z.strictObject({
  kind: z.literal('message'),
  messageId: z.string(),
  role: z.enum(['user', 'agent']),
  parts: z.array(legacyPart),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  metadata,
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});
const legacyStatus = z.strictObject({
  state: z.string(),
  message: legacyMessage.optional(),
  timestamp: z.string().optional(),
});
const legacyArtifact = z.strictObject({
  artifactId: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(legacyPart),
  metadata,
  extensions: z.array(z.string()).optional(),
});
const legacyTask = z.strictObject({
  kind: z.literal('task'),
  id: z.string(),
  contextId: z.string(),
  status: legacyStatus,
  artifacts: z.array(legacyArtifact).optional(),
  history: z.array(legacyMessage).optional(),
  metadata,
});

const rpcEnvelope = { jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number().int(), z.null()]) };
const rpcError = z.strictObject({
  ...rpcEnvelope,
  error: z.strictObject({
    code: z.number().int(),
    message: z.string(),
    data: z
      .array(z.record(z.string(), z.unknown()))
      .optional()
      .describe('google.rpc details, e.g. BadRequest with the fieldViolations of an invalid param'),
  }),
});

/** A JSON-RPC answer of the A2A endpoints (errors travel with HTTP 200). */
export const jsonRpcResponseSchema = z
  .union([
    z.strictObject({
      ...rpcEnvelope,
      result: z.union([
        z.strictObject({ task: a2aTaskSchema }).describe('SendMessage: the task it started or continued'),
        z.strictObject({ message }).describe('SendMessage: a direct reply'),
        a2aTaskSchema.describe('GetTask, CancelTask'),
        listTasks,
        agentCardSchema.describe('GetExtendedAgentCard'),
        legacyTask.describe('A2A 0.3: message/send, tasks/get, tasks/cancel'),
        legacyMessage.describe('A2A 0.3: a direct reply'),
      ]),
    }),
    rpcError,
  ])
  .register(RESPONSE_SCHEMAS, { id: 'JsonRpcResponse' });

/** One `data:` frame of `SendStreamingMessage`/`SubscribeToTask` (and their 0.3 names). */
export const a2aStreamFrameSchema = z
  .union([
    z.strictObject({
      ...rpcEnvelope,
      result: z.union([
        z.strictObject({ task: a2aTaskSchema }),
        z.strictObject({ message }),
        z.strictObject({ statusUpdate }),
        z.strictObject({ artifactUpdate }),
        legacyTask,
        z.strictObject({
          kind: z.literal('status-update'),
          taskId: z.string(),
          contextId: z.string(),
          status: legacyStatus,
          final: z.boolean(),
          metadata,
        }),
        z.strictObject({
          kind: z.literal('artifact-update'),
          taskId: z.string(),
          contextId: z.string(),
          artifact: legacyArtifact,
          append: z.boolean().optional(),
          lastChunk: z.boolean().optional(),
          metadata,
        }),
      ]),
    }),
    rpcError,
  ])
  .register(RESPONSE_SCHEMAS, { id: 'A2AStreamFrame' });

import { TroupeError } from '../../core/errors.js';

export const MODEL_PROVIDERS = ['openai', 'anthropic', 'openai-compatible', 'scripted'] as const;

/** A syntactically valid `provider:model` string, before anything is looked up. */
export type ModelSpec =
  | { provider: 'openai' | 'anthropic'; model: string }
  | { provider: 'openai-compatible'; endpoint: string; model: string }
  | { provider: 'scripted'; scenario: string }
  /** Syntax is fine but the provider is not one Troupe knows: a lookup failure, not a syntax error. */
  | { provider: 'unknown'; name: string };

const FORMS = 'expected "openai:MODEL", "anthropic:MODEL", "openai-compatible:NAME:MODEL" or "scripted:NAME"';

function invalid(spec: string, why: string): TroupeError {
  return new TroupeError('invalid_model_spec', `Invalid model spec "${spec}": ${why}; ${FORMS}`, {
    details: { spec },
  });
}

/**
 * Splits a spec at its first colon (and, for `openai-compatible`, its second): model ids keep any further
 * colons, as in `openai-compatible:ollama:llama3:8b` or OpenAI fine-tune ids.
 */
export function parseModelSpec(spec: string): ModelSpec {
  if (typeof spec !== 'string' || spec.trim() === '') throw invalid(String(spec), 'it is empty');
  if (/\s/.test(spec)) throw invalid(spec, 'it contains whitespace');
  const colon = spec.indexOf(':');
  if (colon <= 0) throw invalid(spec, 'no provider prefix');
  const provider = spec.slice(0, colon);
  const rest = spec.slice(colon + 1);
  if (rest === '') throw invalid(spec, 'the model part is empty');

  switch (provider) {
    case 'openai':
    case 'anthropic':
      return { provider, model: rest };
    case 'openai-compatible': {
      const second = rest.indexOf(':');
      if (second <= 0 || second === rest.length - 1)
        throw invalid(spec, 'openai-compatible needs an endpoint NAME and a MODEL');
      return { provider, endpoint: rest.slice(0, second), model: rest.slice(second + 1) };
    }
    case 'scripted':
      if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(rest)) {
        throw invalid(spec, 'a scenario name uses letters, digits, ".", "_" and "-" only');
      }
      return { provider, scenario: rest };
    default:
      if (!/^[a-z][a-z0-9-]*$/.test(provider)) throw invalid(spec, `"${provider}" is not a provider name`);
      return { provider: 'unknown', name: provider };
  }
}

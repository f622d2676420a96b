import { z } from 'zod';
import { ADVERTISED_AS, Element, ErrorInfo, Rect, Role, WindowInfo } from '../../../protocol/index.js';

/** A JSON Schema object as MCP carries it in inputSchema and outputSchema (`type: "object"` at the root). */
export type ToolJsonSchema = { type: 'object'; properties?: Record<string, object>; required?: string[]; [k: string]: unknown };

/**
 * Names for the shared parts of the answers, so each tool's schema defines them once under `$defs`
 * (the recursive Element is a `$ref` anyway) and a reader sees what `#/$defs/Element` means.
 */
const NAMED = z.registry<{ id: string }>();
NAMED.add(Element, { id: 'Element' });
NAMED.add(WindowInfo, { id: 'WindowInfo' });
NAMED.add(Rect, { id: 'Rect' });
NAMED.add(Role, { id: 'Role' });
NAMED.add(ErrorInfo, { id: 'ErrorInfo' });

/** Longest enum an outputSchema spells out; longer ones are listed as strings. */
const MAX_OUTPUT_ENUM = 12;

/**
 * A tool's JSON Schema from its protocol zod schema: `input` for arguments (what an agent may
 * send, with the descriptions the agent reads), `output` for answers (objects reject unknown keys:
 * what is sent is exactly what is declared; no descriptions). Kept lean because tools/list sends every schema on every listing: `$schema` and the
 * safe-integer bounds zod adds to every integer are dropped (JSON numbers past 2^53 never occur
 * here), as are `propertyNames: {type: string}` (JSON keys are strings anyway) and, in answers, the
 * `type` beside an `enum` or `const`.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): ToolJsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    // Arguments keep their `.describe()` texts (the global registry), inline: they are what the
    // model reads. Answers carry no descriptions and define shared parts once.
    ...(io === 'output' ? { reused: 'ref' as const, metadata: NAMED } : {}),
    override: ({ zodSchema, jsonSchema }) => {
      const s = jsonSchema as Record<string, unknown>;
      const listed = ADVERTISED_AS.get(zodSchema as unknown as z.ZodType);
      if (listed !== undefined) {
        for (const k of Object.keys(s)) delete s[k];
        Object.assign(s, listed);
        return;
      }
      // Bounds on strings and numbers are for validating what agents send; answers need only their shape.
      if (io === 'output') for (const k of ['maxLength', 'minLength', 'maxItems', 'minimum', 'maximum']) delete s[k];
      if (s['maximum'] === Number.MAX_SAFE_INTEGER) delete s['maximum'];
      if (s['minimum'] === Number.MIN_SAFE_INTEGER) delete s['minimum'];
      const names = s['propertyNames'] as Record<string, unknown> | undefined;
      if (names !== undefined && Object.keys(names).length === 1 && names['type'] === 'string') delete s['propertyNames'];
      // A long closed list in an answer (roles, error codes, actions) is a string to a validator: the
      // lists are in docs/tools.md, and repeating them in every tool's outputSchema cost ~1.3 kB a tool.
      if (io === 'output' && Array.isArray(s['enum']) && s['enum'].length > MAX_OUTPUT_ENUM && s['enum'].every((v) => typeof v === 'string')) {
        delete s['enum'];
        s['type'] = 'string';
        return;
      }
      // An enum or const already says its type; only validators read outputSchema, and they need no more.
      if (io === 'output' && (s['enum'] !== undefined || s['const'] !== undefined)) delete s['type'];
    },
  }) as Record<string, unknown>;
  delete json['$schema'];
  // A union of answers (action_wait's receipt, question or handoff) is an object whichever it is: MCP wants that said at the root.
  const anyOf = json['anyOf'];
  if (json['type'] === undefined && Array.isArray(anyOf) && anyOf.every((a) => isObjectSchema(a, json))) json['type'] = 'object';
  if (json['type'] !== 'object') throw new Error(`a tool schema must be an object at its root, got ${String(json['type'])}`);
  return json as ToolJsonSchema;
}

/** Whether one alternative of a union is an object schema (inline, or a `$ref` to one of `$defs`). */
function isObjectSchema(alternative: unknown, root: Record<string, unknown>): boolean {
  const a = alternative as Record<string, unknown>;
  if (a['type'] === 'object') return true;
  const ref = a['$ref'];
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return false;
  const defs = root['$defs'] as Record<string, Record<string, unknown>> | undefined;
  return defs?.[ref.slice('#/$defs/'.length)]?.['type'] === 'object';
}

import { randomBytes } from 'node:crypto';
import type { AnyAction, PolicyRule } from '../../../protocol/index.js';
import { VIEW_ONLY_ACTIONS } from '../../../protocol/index.js';
import type { AllowScope } from './approvals.js';

/** What a confirmed "allow for this session" covers, named in full on the rule. */
export interface AllowRequest {
  session: string;
  agent: string;
  /** The connection the card's act was aimed at, as its incarnation's tag (manager.ts `tagOf`). */
  connection: string;
  action: AnyAction;
  app: string;
  scope: AllowScope;
  /** Element key and how people read it (scope `element`). */
  element: string;
  elementLabel: string;
}

/** What the policy says about one action. */
export type PolicyVerdict = { kind: 'auto'; rule?: string; scope?: AllowScope } | { kind: 'ask' } | { kind: 'deny'; rule: string; detail: string };

const now = (): string => new Date().toISOString();

function matches(pattern: string, app: string): boolean {
  if (pattern.length > 2 && pattern.startsWith('/') && pattern.endsWith('/')) {
    try {
      return new RegExp(pattern.slice(1, -1), 'iu').test(app);
    } catch {
      return false;
    }
  }
  return pattern.toLowerCase() === app.toLowerCase();
}

/** What an allow rule would cover, as far as it names: session, desktop, action kind, app, and the element unless it names the whole app. */
export type AllowShape = Pick<AllowRequest, 'session' | 'connection' | 'action' | 'app' | 'scope' | 'element'>;

/** One act as policy judges it: its agent session, the desktop (connection tag) it is aimed at, its kind, app and element key. */
export interface ActSubject {
  session: string;
  connection: string;
  action: AnyAction;
  app: string;
  element: string;
}

/**
 * Whether a rule (or one about to be made) covers an act: the same agent session, the same desktop
 * (element keys and app names look alike on every desktop, and a remote one names what it likes),
 * the same action kind and app, and the element unless the rule names the whole app. The one matcher
 * policy decides with, and the one that finds the queued cards a new rule covers.
 */
export function allowCovers(rule: PolicyRule | AllowShape, act: ActSubject): boolean {
  if ('kind' in rule && rule.kind !== 'allow') return false;
  const r = rule as AllowShape;
  return (
    r.session === act.session &&
    r.connection === act.connection &&
    r.action === act.action &&
    r.app === act.app &&
    (r.scope === 'app' || r.element === act.element)
  );
}

/**
 * Policy (docs/supervision.md#policy-and-rules): reads and view-only actions run automatically; mutating actions need a
 * person unless a session rule allows that action kind on that app or element; apps can be denied
 * by pattern.
 */
export class Policy {
  private rules: PolicyRule[] = [];
  private readonly listeners = new Set<(rules: PolicyRule[]) => void>();

  /** Subscribes to rule changes. */
  onChange(listener: (rules: PolicyRule[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(): PolicyRule[] {
    return [...this.rules];
  }

  /** Replaces all rules (loaded from settings). */
  load(rules: PolicyRule[]): void {
    this.rules = rules.filter((r) => r.kind === 'deny_app');
    this.emit();
  }

  /**
   * Decides an act. `mutating` is false only for a view-only action the caller found cannot change
   * state (docs/supervision.md#view-only-actions).
   */
  decide(act: ActSubject, mutating = !VIEW_ONLY_ACTIONS.has(act.action)): PolicyVerdict {
    const { app } = act;
    const deny = this.rules.find((r) => r.kind === 'deny_app' && matches(r.pattern, app));
    if (deny !== undefined && deny.kind === 'deny_app')
      return { kind: 'deny', rule: deny.id, detail: `the application "${app}" is denied by the rule ${deny.pattern}` };
    if (!mutating) return { kind: 'auto' };
    const allow = this.rules.find((r) => allowCovers(r, act));
    return allow === undefined || allow.kind !== 'allow' ? { kind: 'ask' } : { kind: 'auto', rule: allow.id, scope: allow.scope };
  }

  /** The confirmed second step of "allow for this session": a rule of exactly the scope the person named. */
  allowForSession(a: AllowRequest): PolicyRule {
    const rule: PolicyRule = {
      kind: 'allow',
      id: `R${randomBytes(6).toString('base64url')}`,
      session: a.session,
      agent: a.agent,
      connection: a.connection,
      action: a.action,
      app: a.app,
      scope: a.scope,
      ...(a.scope === 'element' ? { element: a.element, element_label: a.elementLabel } : {}),
      created_at: now(),
    };
    this.rules.push(rule);
    this.emit();
    return rule;
  }

  /** Denies an application by name or /regex/. */
  denyApp(pattern: string): PolicyRule {
    const rule: PolicyRule = { kind: 'deny_app', id: `R${randomBytes(6).toString('base64url')}`, pattern, created_at: now() };
    this.rules.push(rule);
    this.emit();
    return rule;
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    this.emit();
    return this.rules.length < before;
  }

  /** Drops the session rules of an agent that disconnected. */
  endSession(session: string): void {
    this.rules = this.rules.filter((r) => r.kind !== 'allow' || r.session !== session);
    this.emit();
  }

  private emit(): void {
    for (const l of this.listeners) l(this.list());
  }
}

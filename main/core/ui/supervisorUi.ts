import {
  LOCAL_CONNECTION_NAME,
  OverseerError,
  QUESTION_HANDOFF_LIMITS,
  cardPicture,
  cardSubject,
  errorInfo,
  fail,
  isQuestionOrHandoffCard,
  withoutPictures,
  type HandoffApproval,
  type PendingApproval,
  type PolicyRule,
  type QuestionApproval,
  type AgentConnectInfo,
} from '../../../protocol/index.js';
import type { AllowScope } from '../supervision/approvals.js';
import type { AllowRequest } from '../supervision/policy.js';
import { coveredCards, whyNotCovered } from '../supervision/ruleCoverage.js';
import type { UiHandlers } from './uiHub.js';
import type { UiHost } from './uiHost.js';

/** The Screen view's picture: the agents' default screenshot size, as JPEG (it is sent to the UI on every refresh). */
const SCREEN_VIEW_SIZE = { max_width: 1280, max_height: 800, format: 'jpeg', quality: 75 } as const;

const gone = (id: string): OverseerError =>
  new OverseerError(errorInfo('expired', `approval ${id} is no longer pending (it was decided, expired, braked or withdrawn)`));

/** Approve and deny decide actions only: a question is answered, a handoff given back (docs/supervision.md#questions-and-handoffs). */
const notAnAction = (item: QuestionApproval | HandoffApproval): OverseerError =>
  fail(
    'invalid_argument',
    item.kind === 'question' ? 'this card is a question: answer it (answer_question)' : 'this card is a handoff: give control back (resume_handoff)',
  );

/** The pending question of this id, or the refusal that says why not. */
function questionCard(s: UiHost, id: string): QuestionApproval {
  const item = s.approvals.get(id);
  if (item === undefined) throw gone(id);
  if (item.kind !== 'question') throw fail('invalid_argument', `card ${id} is not a question`);
  return item;
}

/** The pending handoff of this id, or the refusal that says why not. */
function handoffCard(s: UiHost, id: string): HandoffApproval {
  const item = s.approvals.get(id);
  if (item === undefined) throw gone(id);
  if (item.kind !== 'handoff') throw fail('invalid_argument', `card ${id} is not a handoff`);
  return item;
}

/**
 * The rule "allow for this session" makes from a card: the scope the person named, on the desktop
 * the card's act is aimed at, nothing implied. A card no rule decides (a shell command, a new
 * connection, a question) is refused with what to do instead.
 */
function allowRequest(s: UiHost, item: PendingApproval, scope: AllowScope): AllowRequest {
  const rule = s.approvals.subject(item.approval_id);
  if (rule === undefined)
    throw fail('invalid_argument', `no session rule covers ${item.action}: approve this card alone`, { reason: 'no_rule', action: item.action });
  const subject = cardSubject(item);
  return {
    session: item.session,
    agent: item.agent,
    connection: rule.connection,
    action: rule.action,
    app: subject.app,
    scope,
    element: subject.key,
    elementLabel: subject.label,
  };
}

/** A queued card the person named that the new rule may not decide: why, or nothing when it may. */
function whyNot(s: UiHost, request: AllowRequest, id: string): { approval_id: string; why: string }[] {
  const why = whyNotCovered(s.approvals, request, id);
  return why === undefined ? [] : [{ approval_id: id, why }];
}

/**
 * What each UI command does. Only the UI channel reaches these — the WebSocket with the person's
 * cookie, or IPC from the desktop app's own page — never an agent's credential (docs/security.md).
 */
export function supervisorUiHandlers(s: UiHost): UiHandlers {
  return {
    approve: ({ approval_id, allow }) => {
      const item = s.approvals.get(approval_id);
      if (item === undefined) return Promise.reject(gone(approval_id));
      if (isQuestionOrHandoffCard(item)) return Promise.reject(notAnAction(item));
      // A shell command or a new connection is approved one card at a time: no rule ever covers them.
      const request = allow !== undefined ? allowRequest(s, item, allow.scope) : undefined;
      // The queued cards the person confirmed by name, checked against the rule before anything is decided.
      const also = (allow?.also ?? []).filter((id, i, all) => id !== approval_id && all.indexOf(id) === i);
      const refused = request === undefined ? [] : also.flatMap((id) => whyNot(s, request, id));
      if (!s.approvals.approve(approval_id, allow?.scope)) return Promise.reject(gone(approval_id));
      if (request === undefined) return Promise.resolve({ ok: true as const });
      const rule: PolicyRule = s.policy.allowForSession(request);
      const approved: string[] = [];
      for (const id of also) {
        if (refused.some((r) => r.approval_id === id)) continue;
        if (s.approvals.approve(id, undefined, `approved by name with the session rule ${rule.id} (allowed on ${approval_id})`)) approved.push(id);
        else refused.push({ approval_id: id, why: 'it is no longer pending (decided, expired, braked or withdrawn)' });
      }
      return Promise.resolve({
        ok: true as const,
        rule,
        ...(also.length > 0 ? { also_approved: approved, also_refused: refused } : {}),
      });
    },
    allow_preview: ({ approval_id, scope }) => {
      const item = s.approvals.get(approval_id);
      if (item === undefined) return Promise.reject(gone(approval_id));
      if (isQuestionOrHandoffCard(item)) return Promise.reject(notAnAction(item));
      return Promise.resolve({ covered: coveredCards(s.approvals, allowRequest(s, item, scope), approval_id) });
    },
    grant_stdio_agent: ({ name }) => {
      const made = s.grantStdioAgent(name);
      if (made === undefined) return Promise.reject(fail('invalid_argument', 'no more agents can be granted a credential: revoke one first'));
      return Promise.resolve(made);
    },
    revoke_grant: ({ id }) => {
      if (!s.revokeGrant(id)) return Promise.reject(fail('not_found', `no grant ${id} stands`));
      return Promise.resolve({ ok: true as const });
    },
    disconnect_agent: ({ session }) => {
      if (s.agents.get(session) === undefined) return Promise.reject(fail('not_found', `no agent session ${session} is connected`));
      s.endSession(session, 'disconnected by the person');
      return Promise.resolve({ ok: true as const });
    },
    deny: ({ approval_id, reason }) => {
      const item = s.approvals.get(approval_id);
      if (item !== undefined && isQuestionOrHandoffCard(item)) return Promise.reject(notAnAction(item));
      if (!s.approvals.deny(approval_id, reason)) return Promise.reject(gone(approval_id));
      return Promise.resolve({ ok: true as const });
    },
    answer_question: ({ approval_id, choice, answer, decline, note }) => {
      const item = questionCard(s, approval_id);
      const given = [choice !== undefined, answer !== undefined, decline === true].filter(Boolean).length;
      if (given !== 1) throw fail('invalid_argument', 'give exactly one of choice, answer or decline');
      if (decline === true) {
        if (!s.approvals.settle(approval_id, { verdict: 'denied', ...(note !== undefined ? { note } : {}) })) throw gone(approval_id);
        return Promise.resolve({ ok: true as const });
      }
      const choices = item.question.choices ?? [];
      if (choice !== undefined && choices[choice] === undefined)
        throw fail('invalid_argument', `the question offers ${choices.length} choices; ${choice} is not one`);
      const text = choice !== undefined ? (choices[choice] as string) : (answer ?? '');
      if (text.trim() === '') throw fail('invalid_argument', 'an answer must not be blank (decline instead)');
      if (text.length > QUESTION_HANDOFF_LIMITS.answer) throw fail('invalid_argument', `an answer is at most ${QUESTION_HANDOFF_LIMITS.answer} characters`);
      if (!s.approvals.settle(approval_id, { verdict: 'approved', answer: { text, ...(choice !== undefined ? { choice } : {}) } })) throw gone(approval_id);
      return Promise.resolve({ ok: true as const });
    },
    resume_handoff: ({ approval_id, note }) => {
      handoffCard(s, approval_id);
      if (!s.approvals.settle(approval_id, { verdict: 'approved', ...(note !== undefined ? { note } : {}) })) throw gone(approval_id);
      return Promise.resolve({ ok: true as const });
    },
    presence: ({ visible }) => {
      s.notePresence(visible);
      return Promise.resolve({ ok: true as const });
    },
    cancel_held: ({ approval_id, reason }) => {
      if (!s.holds.cancel(approval_id, reason))
        return Promise.reject(
          new OverseerError(errorInfo('expired', `action ${approval_id} is no longer held (the pause ended, or it was cancelled or withdrawn)`)),
        );
      return Promise.resolve({ ok: true as const });
    },
    brake: async ({ action }) => {
      const brake = s.brakes.apply(action);
      await s.brakeRecorded();
      return { brake };
    },
    choose_window: async ({ window }) => {
      await s.tree.choose(window, s.windows.find((w) => w.window === window)?.pid);
      return { ok: true as const };
    },
    reload_tree: async () => {
      if (s.tree.window === undefined) throw fail('invalid_argument', 'no window is chosen');
      await s.tree.reload();
      return { ok: true as const };
    },
    refresh_windows: async () => {
      const viewed = s.viewed;
      const { windows } = await s.viewedHelper.call('window_list', {});
      // The person switched desktops while this list was read: it belongs to the one they left, and is never shown as the new one's.
      if (s.viewed !== viewed) return { windows: s.windows };
      s.windows = windows;
      s.ui.emit('windows', s.windows);
      return { windows: s.windows };
    },
    screen_view: async ({ window }) => {
      // The same capture, masking and exclusions as an agent's screenshot; a failure (capture_unavailable…) reaches the view typed.
      const shot = await s.viewedHelper.call('screen_capture', { ...(window !== undefined ? { window } : {}), ...SCREEN_VIEW_SIZE, keep: false });
      return {
        picture: `data:${shot.image.mime};base64,${shot.image.data}`,
        width: shot.image.width,
        height: shot.image.height,
        transform: shot.transform,
        masked: shot.masked,
        captured_at: new Date(s.clock.now()).toISOString(),
      };
    },
    // Forgetting is the person's: the helper drops the desktop's standing answers, never gives one itself.
    screen_consent: ({ forget }) => s.viewedHelper.call('screen_consent', forget === true ? { forget: true } : {}, { timeoutMs: 10_000 }),
    pair_link: () => {
      if (s.pairLink === undefined)
        return Promise.reject(fail('invalid_argument', 'this supervisor has no browser UI to sign in to (the desktop app talks to its own window only)'));
      return Promise.resolve(s.pairLink());
    },
    update_settings: async (patch) => {
      const settings = await s.settings.update(patch, s.policy.list());
      await s.helper.setExclusions(s.exclusions());
      s.ui.emit('settings', settings);
      if (patch.shared_token !== undefined) s.ui.emit('agent_connect', agentConnect(s));
      s.emitAgents();
      return { settings };
    },
    add_rule: async ({ pattern }) => {
      const rule = s.policy.denyApp(pattern);
      await s.settings.update({}, s.policy.list());
      return { rule };
    },
    remove_rule: async ({ id }) => {
      s.policy.remove(id);
      await s.settings.update({}, s.policy.list());
      return { ok: true as const };
    },
    card_picture: ({ approval_id, which }) => {
      const item = s.approvals.get(approval_id) ?? s.holds.get(approval_id);
      if (item === undefined) return Promise.reject(gone(approval_id));
      const picture = cardPicture(item, which);
      if (picture === undefined || picture === '') return Promise.reject(fail('not_found', `card ${approval_id} has no ${which} picture`));
      return Promise.resolve({ picture });
    },
    receipt_picture: ({ receipt_id }) => s.pictures.read(receipt_id).then((picture) => ({ picture })),
    snapshot: () => {
      const tree = s.tree.tree;
      const chosen = s.tree.window;
      return Promise.resolve({
        agents: s.agentInfos(),
        windows: s.windows,
        ...(chosen !== undefined ? { chosen_window: chosen } : {}),
        ...(tree !== undefined ? { tree: tree.elements } : {}),
        tree_status: s.tree.status,
        pending: s.approvals.list().map(withoutPictures),
        held: s.holds.list().map(withoutPictures),
        receipts: [...s.receipts],
        brake: s.brakes.state,
        helper: s.helper.health,
        settings: s.settings.settings,
        rules: s.policy.list(),
        connections: s.connectionsView(),
        grants: s.grantInfos(),
        connection: agentConnect(s),
      });
    },
    // Settings → Connections (docs/connections.md#registry-and-tools): the person's own changes, no card.
    connection_add: async ({ config }) => {
      const entry = await s.connections.add({ ...config, enabled: true });
      await s.journal.append({ kind: 'system', event: 'connection_added', by: 'human', connection: entry });
      const info = s.connections.list().find((c) => c.name === entry.name);
      if (info === undefined) throw fail('internal', `the connection "${entry.name}" was added but is not listed`);
      return { connection: info };
    },
    connection_test: ({ name }) => s.connections.test(name),
    connection_set_enabled: async ({ name, enabled }) => {
      await s.connections.setEnabled(name, enabled);
      await s.journal.append({ kind: 'system', event: enabled ? 'connection_enabled' : 'connection_disabled', by: 'human', connection: name });
      return { ok: true as const };
    },
    connection_remove: async ({ name }) => {
      await s.connections.remove(name);
      if (s.viewed === name) await s.view(LOCAL_CONNECTION_NAME);
      await s.journal.append({ kind: 'system', event: 'connection_removed', by: 'human', connection: name });
      return { ok: true as const };
    },
    view_connection: async ({ name }) => {
      if (!s.connections.has(name)) throw fail('not_found', `no connection "${name}"`, { name });
      await s.view(name);
      return { ok: true as const };
    },
  };
}

/** How agents connect, with the shared token only while it opens something (docs/agents.md#the-shared-token). */
function agentConnect(s: UiHost): AgentConnectInfo {
  if (s.settings.settings.shared_token) return s.options.connection;
  const { mcp_token: _shared, ...rest } = s.options.connection;
  return rest;
}

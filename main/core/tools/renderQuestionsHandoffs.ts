// The compact text of computer_ask and computer_ctrl answers (docs/tools.md#computer_ask).
import type { CtrlState, QuestionHandoffAnswer } from '../../../protocol/index.js';

const q = (s: string): string => JSON.stringify(s);

/** A question's or handoff's answer as the agent reads it. */
export function renderQuestionsHandoffs(a: QuestionHandoffAnswer): string {
  const head = `${a.kind} ${a.receipt_id} → ${a.outcome}`;
  if (a.outcome === 'pending')
    return `${head}\n${a.kind === 'question' ? 'the person has not answered yet' : 'the person has not given control back yet'}; call action_wait with this receipt_id to keep waiting`;
  if (a.outcome === 'refused') return `${head}\nrefused: ${a.refusal?.code ?? 'internal'}: ${a.refusal?.detail ?? ''}`;
  if (a.kind === 'handoff') return `${head}\nresumed: true${a.note !== undefined ? `\nnote: ${q(a.note)}` : ''}`;
  if (a.outcome === 'declined') return `${head}${a.note !== undefined ? `\nnote: ${q(a.note)}` : ''}`;
  return `${head}\nanswer: ${q(a.answer ?? '')}${a.choice !== undefined ? ` (choice ${a.choice})` : ''}`;
}

/** computer_ctrl's state as the agent reads it. */
export function renderCtrlState(s: CtrlState): string {
  const tiers = [s.tiers.accessibility ? 'accessibility' : undefined, s.tiers.screen ? 'screen' : undefined].filter((t) => t !== undefined);
  const out = [
    `brake: ${s.brake}`,
    `person: ${s.person.watching ? 'watching' : 'not watching'} (${s.person.ui_attached} UI attached${s.person.last_active !== undefined ? `, last active ${s.person.last_active}` : ''})`,
    `connection: ${s.connection.id}${s.connection.handed_off ? ' (handed to the person: inputs wait)' : ''}`,
    `tiers: ${tiers.length > 0 ? tiers.join(', ') : 'none active'}${s.tiers.screen_offered ? '' : ' (screen tier not offered)'}`,
  ];
  if (s.handoff !== undefined) out.push(`handoff: ${s.handoff.receipt_id} since ${s.handoff.since}: ${q(s.handoff.reason)}`);
  out.push(`pending: ${s.pending.length}`);
  for (const p of s.pending) out.push(`  ${p.receipt_id} ${p.kind} ${p.action} since ${p.since}`);
  out.push(`held: ${s.held.length}`);
  for (const h of s.held) out.push(`  ${h.receipt_id} ${h.action} held by the ${h.by} since ${h.since}`);
  out.push(`rules: ${s.rules.length}`);
  for (const r of s.rules)
    out.push(
      r.kind === 'deny_app'
        ? `  ${r.id} deny apps matching ${q(r.pattern ?? '')}`
        : `  ${r.id} allow ${r.action ?? ''} in ${q(r.app ?? '')} (${r.scope ?? ''})`,
    );
  return out.join('\n');
}

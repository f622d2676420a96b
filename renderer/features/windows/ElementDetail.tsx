import type { ReactNode } from 'react';
import { selectSelectedNode } from '../../store/selectors.js';
import { displayValue } from '../../model/tree.js';
import { useApp } from '../../store/useApp.js';
import { UntrustedText } from '../shell/UntrustedText.js';

/** Every field of the selected element. */
export function ElementDetail() {
  const node = useApp(selectSelectedNode);
  if (node === undefined) return <p className="muted detail-empty">Select an element to see all its fields.</p>;
  const e = node.element;
  const states = Object.entries(e.state);
  const rows: [string, ReactNode][] = [
    [
      'Role',
      e.native_role !== undefined ? (
        <>
          {e.role} (<UntrustedText text={e.native_role} />)
        </>
      ) : (
        e.role
      ),
    ],
    ['Name', untrusted(e.name)],
    ['Value', untrusted(displayValue(e))],
    ['Automation id', untrusted(e.automation_id)],
    ['Class', untrusted(e.class)],
    ['Rect', e.rect === undefined ? undefined : `x ${e.rect.x}, y ${e.rect.y}, ${e.rect.w}×${e.rect.h} (center ${e.rect.cx}, ${e.rect.cy})`],
    ['States', states.length === 0 ? undefined : states.map(([k, v]) => (v === true ? k : `${k}=${String(v)}`)).join(', ')],
    ['Patterns', e.patterns.length === 0 ? undefined : e.patterns.join(', ')],
    ['Actions', untrusted(e.actions?.join(', '))],
    ['Unread', e.unread?.join(', ')],
    ['Cut', e.cut?.join(', ')],
    ['Redacted', e.redacted === true ? 'yes (password)' : undefined],
    ['Children', String(node.childCount)],
    ['Key', untrusted(e.key)],
    ['Digest', e.digest],
    ['Target', e.target],
  ];
  return (
    <section className="detail" aria-label="Element details" data-testid="element-detail" tabIndex={0}>
      <h3>
        {e.role}{' '}
        {e.name !== undefined && (
          <q>
            <UntrustedText text={e.name} />
          </q>
        )}
      </h3>
      <dl>
        {rows
          .filter(([, v]) => v !== undefined && v !== '')
          .map(([k, v]) => (
            <div key={k} className={k === 'Unread' ? 'unread' : undefined}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
      </dl>
    </section>
  );
}

/** A field the application supplied, as untrusted text (block: a value may hold many lines); absent stays absent. */
function untrusted(text: string | undefined): ReactNode {
  return text === undefined || text === '' ? undefined : <UntrustedText text={text} block />;
}

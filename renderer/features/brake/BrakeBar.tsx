import { useState } from 'react';
import type { BrakeState } from '../../../protocol/index.js';
import { selectBrake, selectConnection, selectLive } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { useCommand } from '../shell/apiContext.js';
import './brake.css';

const LABELS: Record<BrakeState, { title: string; detail: string }> = {
  running: { title: 'Running', detail: 'Approved actions are dispatched.' },
  paused: { title: 'Paused', detail: 'Nothing new is dispatched; pending items wait.' },
  stopped: { title: 'Stopped', detail: 'Pending items were answered braked; new actions are refused.' },
  emergency: { title: 'EMERGENCY STOP', detail: 'Helper killed, agents disconnected. Re-arm to continue.' },
};

/** What the bar says while the supervisor cannot be reached: the last state it sent may no longer be true. */
const UNKNOWN = { title: 'Unknown — not connected', detail: 'The brake state cannot be known or changed until the supervisor answers again.' };

/**
 * The brakes, always visible: pause, resume, stop, emergency stop (confirmed), re-arm. Without a
 * connection it never shows the last known state as if it were current (a green "Running" with the
 * supervisor gone would be a lie): it says the state is unknown and its controls are disabled.
 */
export function BrakeBar() {
  const known = useApp(selectBrake);
  const online = useApp(selectConnection).state === 'open';
  const live = useApp(selectLive);
  const brake = live ? known : 'unknown';
  const command = useCommand();
  const [confirming, setConfirming] = useState(false);
  const apply = (action: 'pause' | 'resume' | 'stop' | 'emergency_stop' | 'rearm') => {
    setConfirming(false);
    void command('brake', { action }).then((r) => r !== undefined && appStore.getState().setBrake(r.brake));
  };
  const label = brake === 'unknown' ? UNKNOWN : LABELS[brake];
  return (
    <section className={`brake brake-${brake}`} aria-label="Brakes">
      <div className="brake-state" data-testid="brake-state" data-state={brake} role="status" aria-live="assertive">
        <span className="brake-dot" aria-hidden="true" />
        <strong>{label.title}</strong>
        <span className="brake-detail">{label.detail}</span>
      </div>
      <div className="brake-buttons">
        {brake === 'unknown' && (
          <button type="button" data-testid="brake-pause" disabled>
            Pause
          </button>
        )}
        {brake === 'running' && (
          <button type="button" data-testid="brake-pause" disabled={!online} onClick={() => apply('pause')}>
            Pause
          </button>
        )}
        {(brake === 'paused' || brake === 'stopped') && (
          <button type="button" data-testid="brake-resume" disabled={!online} onClick={() => apply('resume')}>
            Resume
          </button>
        )}
        {(brake === 'running' || brake === 'paused' || brake === 'unknown') && (
          <button type="button" className="warn" data-testid="brake-stop" disabled={!online} onClick={() => apply('stop')}>
            Stop
          </button>
        )}
        {brake === 'emergency' ? (
          <button type="button" data-testid="brake-rearm" disabled={!online} onClick={() => apply('rearm')}>
            Re-arm
          </button>
        ) : confirming ? (
          <span className="confirm" role="group" aria-label="Confirm emergency stop">
            <button type="button" className="danger" data-testid="brake-emergency-confirm" autoFocus disabled={!online} onClick={() => apply('emergency_stop')}>
              Confirm emergency stop
            </button>
            <button type="button" data-testid="brake-emergency-cancel" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" className="danger" data-testid="brake-emergency" disabled={!online} onClick={() => setConfirming(true)}>
            Emergency stop
          </button>
        )}
      </div>
    </section>
  );
}

import { useState } from 'react';
import type { BrakeState } from '../../../protocol/index.js';
import { selectBrake, selectConnection } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { useCommand } from '../shell/apiContext.js';

const LABELS: Record<BrakeState, { title: string; detail: string }> = {
  running: { title: 'Running', detail: 'Approved actions are dispatched.' },
  paused: { title: 'Paused', detail: 'Nothing new is dispatched; pending items wait.' },
  stopped: { title: 'Stopped', detail: 'Pending items were answered braked; new actions are refused.' },
  emergency: { title: 'EMERGENCY STOP', detail: 'Helper killed, agents disconnected. Re-arm to continue.' },
};

/** The brakes, always visible: pause, resume, stop, emergency stop (confirmed), re-arm. */
export function BrakeBar() {
  const brake = useApp(selectBrake);
  const online = useApp(selectConnection).state === 'open';
  const command = useCommand();
  const [confirming, setConfirming] = useState(false);
  const apply = (action: 'pause' | 'resume' | 'stop' | 'emergency_stop' | 'rearm') => {
    setConfirming(false);
    void command('brake', { action }).then((r) => r !== undefined && appStore.getState().setBrake(r.brake));
  };
  const label = LABELS[brake];
  return (
    <section className={`brake brake-${brake}`} aria-label="Brakes">
      <div className="brake-state" data-testid="brake-state" data-state={brake} role="status" aria-live="assertive">
        <span className="brake-dot" aria-hidden="true" />
        <strong>{label.title}</strong>
        <span className="brake-detail">{label.detail}</span>
      </div>
      <div className="brake-buttons">
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
        {(brake === 'running' || brake === 'paused') && (
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
            <button type="button" className="danger" data-testid="brake-emergency-confirm" autoFocus onClick={() => apply('emergency_stop')}>
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

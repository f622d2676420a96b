import { useEffect, useRef, useState } from 'react';
import { BRAKE_KEYS, brakeKey, brakeWords } from '../../model/brakeWords.js';
import { selectAgents, selectBrake, selectConnection, selectLive } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { useCommand } from '../shell/apiContext.js';
import './brake.css';

/**
 * The brakes, always visible: pause, resume, stop, emergency stop (confirmed), re-arm. Without a
 * connection it never shows the last known state as if it were current (a green "Running" with the
 * supervisor gone would be a lie): it says the state is unknown and its controls are disabled.
 * Ctrl+Alt+Shift+P pauses and Ctrl+Alt+Shift+Esc is the emergency stop, wherever focus is; the
 * buttons show those keys.
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
  const agents = useApp(selectAgents).length;
  const label = brakeWords(brake, agents);
  const keyAction = useRef<(k: 'pause' | 'emergency_stop') => void>(() => undefined);
  keyAction.current = (k) => {
    if (!online || brake === 'unknown' || brake === 'emergency' || (k === 'pause' && brake !== 'running')) return;
    apply(k);
  };
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      const k = brakeKey(e);
      if (k === undefined) return;
      e.preventDefault();
      keyAction.current(k);
    };
    window.addEventListener('keydown', onKeyDown, true);
    return () => window.removeEventListener('keydown', onKeyDown, true);
  }, []);
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
          <button
            type="button"
            data-testid="brake-pause"
            disabled={!online}
            aria-keyshortcuts={BRAKE_KEYS.pause.aria}
            title={`Pause (${BRAKE_KEYS.pause.shown})`}
            onClick={() => apply('pause')}
          >
            Pause{' '}
            <kbd className="brake-key" aria-hidden="true">
              {BRAKE_KEYS.pause.shown}
            </kbd>
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
          <button
            type="button"
            className="danger"
            data-testid="brake-emergency"
            disabled={!online}
            aria-keyshortcuts={BRAKE_KEYS.emergency.aria}
            title={`Emergency stop (${BRAKE_KEYS.emergency.shown}: no confirmation)`}
            onClick={() => setConfirming(true)}
          >
            Emergency stop{' '}
            <kbd className="brake-key" aria-hidden="true">
              {BRAKE_KEYS.emergency.shown}
            </kbd>
          </button>
        )}
      </div>
    </section>
  );
}

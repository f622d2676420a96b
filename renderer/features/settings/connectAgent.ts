import { appStore } from '../../store/useApp.js';

/** The heading of Settings → Connect an agent, where the ready snippets are. */
export const CONNECT_AGENT_ID = 'snippets-heading';

let wanted = false;

/** Brings the person to Settings → Connect an agent (docs/supervision.md#first-run): the view opens there, its heading focused. */
export function openConnectAgent(): void {
  wanted = true;
  if (appStore.getState().view === 'settings') showConnectAgent();
  else appStore.getState().setView('settings');
}

/** Called once the snippets are rendered: shows them if the person asked to go there. */
export function showConnectAgent(): void {
  if (!wanted) return;
  const heading = document.getElementById(CONNECT_AGENT_ID);
  if (heading === null) return;
  wanted = false;
  heading.scrollIntoView({ block: 'start' });
  heading.focus({ preventScroll: true });
}

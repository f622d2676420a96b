// The shared base first: every feature's stylesheet comes after it.
import './base.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connect, uiChannelUrl } from './api/api.js';
import { App } from './App.js';
import { ApiContext } from './features/shell/apiContext.js';
import { appStore } from './store/useApp.js';

// Inside the desktop app the preload exposes `window.overseer`; in a browser it is absent.
const channel = uiChannelUrl(window.location, import.meta.env.DEV);
// Nothing secret belongs in the address bar (an old link's ?token= included): keep the path only.
if (window.location.search !== '' && !import.meta.env.DEV) window.history.replaceState(null, '', window.location.pathname);
const api = connect(
  { bridge: window.overseer, url: channel },
  {
    onEvent: (event) => appStore.getState().applyEvent(event),
    onStatus: (status) => appStore.getState().setConnection(status),
    onProtocolError: (what) => console.warn(`[ui] ignored ${what}`),
  },
);

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <ApiContext value={api}>
      <App />
    </ApiContext>
  </StrictMode>,
);

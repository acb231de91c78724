import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { createApi } from './api.js';
import { startLive } from './live.js';
import { useDashboard } from './store.js';
import { forgetToken, takeToken } from './token.js';
import './styles.css';

const token = takeToken();
if (token) {
  // A refused token is useless in this tab from now on: drop it, so a reload asks for a link.
  const rejected = () => {
    forgetToken();
    useDashboard.getState().reject();
  };
  const api = createApi(token, rejected);
  useDashboard.setState({ api });
  startLive(token, api, rejected);
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

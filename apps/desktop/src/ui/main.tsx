import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { api } from './api.ts';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element: the desktop bundle cannot mount.');
// Team mode's session first: every change the app sends carries its CSRF token. The single-person
// app has none, and starts the same.
void api
  .session()
  .catch(() => null)
  .then(() =>
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    ),
  );

// The keyboard: Ctrl+K the chat, Ctrl+P the palette, Ctrl+. the chat shown or hidden, Alt+1…9 a
// tab, Alt+W closes it, ? the shortcuts, Escape closes what is over the app.
import { type RefObject, useEffect } from 'react';
import type { Tab } from './useTabs.ts';

export type Overlay = 'palette' | 'help' | 'model' | null;

export function useShortcuts(options: {
  tabs: readonly Tab[];
  focusedId: string | null;
  overlay: Overlay;
  setOverlay: (overlay: Overlay) => void;
  toggleChat: (hidden?: boolean) => void;
  chatInput: RefObject<HTMLTextAreaElement | null>;
  focus: (id: string) => void;
  closeTab: (id: string) => void;
}) {
  const { tabs, focusedId, overlay, setOverlay, toggleChat, chatInput, focus, closeTab } = options;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const mod = event.ctrlKey || event.metaKey;
      const target = event.target as HTMLElement | null;
      const typing =
        !!target &&
        (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT');
      if (mod && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        toggleChat(false);
        setTimeout(() => chatInput.current?.focus(), 0);
      } else if (mod && event.key.toLowerCase() === 'p') {
        event.preventDefault();
        setOverlay('palette');
      } else if (mod && event.key === '.') {
        event.preventDefault();
        toggleChat();
      } else if (event.altKey && /^[1-9]$/.test(event.key)) {
        const tab = tabs[Number(event.key) - 1];
        if (tab) {
          event.preventDefault();
          focus(tab.id);
        }
      } else if (event.altKey && event.key.toLowerCase() === 'w' && focusedId) {
        event.preventDefault();
        closeTab(focusedId);
      } else if (event.key === '?' && !typing) {
        event.preventDefault();
        setOverlay('help');
      } else if (event.key === 'Escape' && overlay) {
        setOverlay(null);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [tabs, focusedId, overlay, focus, closeTab, setOverlay, toggleChat, chatInput]);
}

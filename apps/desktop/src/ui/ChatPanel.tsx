import { useChat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  type DynamicToolUIPart,
  getToolName,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type ToolUIPart,
  type UIMessage,
} from 'ai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { type AppStatus, type Chip, PERMISSION_MODES, type PermissionMode } from './api.ts';
import { chipOf, formatUsage, summarizeInput, usageOf } from './chat-parts.ts';
import { ErrorBox, ToolBadges } from './widgets.tsx';

export interface ChatPanelProps {
  status: AppStatus | null;
  mode: PermissionMode;
  onModeChange: (mode: PermissionMode) => void;
  /** A chip was clicked: run its tool as the user. Rejects with a readable error. */
  onChip: (chip: Chip) => Promise<void>;
  /** A turn ended (or paused for an approval): the agent may have changed tabs, staging or the audit log. */
  onTurnSettled: () => void;
  inputRef: React.RefObject<HTMLTextAreaElement | null>;
}

type ToolPart = ToolUIPart | DynamicToolUIPart;

export function ChatPanel(props: ChatPanelProps) {
  const [draft, setDraft] = useState('');
  const transport = useMemo(() => new DefaultChatTransport({ api: '/api/chat' }), []);
  const { messages, sendMessage, status, error, stop, addToolApprovalResponse, setMessages, clearError } =
    useChat({
      transport,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
  const log = useRef<HTMLDivElement>(null);
  const busy = status === 'submitted' || status === 'streaming';

  const settled = useRef(props.onTurnSettled);
  settled.current = props.onTurnSettled;
  const previous = useRef(status);
  useEffect(() => {
    if (previous.current !== status && (status === 'ready' || status === 'error')) settled.current();
    previous.current = status;
  }, [status]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll on every new message or streamed part.
  useEffect(() => {
    log.current?.scrollTo({ top: log.current.scrollHeight });
  }, [messages]);

  const send = () => {
    const text = draft.trim();
    if (!text || busy) return;
    setDraft('');
    void sendMessage({ text });
  };

  return (
    <aside className="chat" aria-label="Chat with the agent">
      <div className="chat-head">
        <span className="title">Agent</span>
        <div className="segmented" role="radiogroup" aria-label="Permission mode">
          {PERMISSION_MODES.map((option) => (
            // biome-ignore lint/a11y/useSemanticElements: see above.
            <button
              key={option.mode}
              type="button"
              role="radio"
              aria-checked={props.mode === option.mode}
              title={option.hint}
              onClick={() => props.onModeChange(option.mode)}
            >
              {option.label}
            </button>
          ))}
        </div>
        <button
          type="button"
          className="btn small ghost"
          title="Start a new conversation"
          disabled={busy || messages.length === 0}
          onClick={() => {
            setMessages([]);
            clearError();
          }}
        >
          New
        </button>
      </div>
      {props.status && !props.status.model.configured ? (
        <div className="notice" data-testid="no-model">
          No model is configured, so the agent cannot answer yet. {props.status.model.hint}
        </div>
      ) : null}
      <div className="chat-log" ref={log} aria-live="polite">
        {messages.length === 0 ? (
          <div className="empty" style={{ flex: 'none', padding: '24px 8px' }}>
            <p>
              Ask about your tables: <em>“show me last month's paid orders”</em>,{' '}
              <em>“which customers ordered most?”</em>, <em>“export cancelled orders as CSV”</em>.
            </p>
            <p className="faint">
              The agent proposes; you decide. Writes only stage, and you commit them in Staging.
            </p>
          </div>
        ) : null}
        {messages.map((message) => (
          <Message
            key={message.id}
            message={message}
            onApprove={(id, approved) =>
              void addToolApprovalResponse({
                id,
                approved,
                reason: approved ? undefined : 'The user denied this action.',
              })
            }
            onChip={props.onChip}
          />
        ))}
        {status === 'submitted' ? <div className="faint">Thinking…</div> : null}
        {error ? <ErrorBox error={error} /> : null}
      </div>
      <form
        className="chat-input"
        onSubmit={(event) => {
          event.preventDefault();
          send();
        }}
      >
        <textarea
          ref={props.inputRef}
          aria-label="Message"
          placeholder="Ask about your data…"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              send();
            }
          }}
        />
        <div className="row">
          <span className="faint">
            <kbd>Enter</kbd> send · <kbd>Shift</kbd>+<kbd>Enter</kbd> newline · <kbd>Ctrl</kbd>+<kbd>K</kbd>{' '}
            focus
          </span>
          <span className="grow" />
          {busy ? (
            <button type="button" className="btn small" onClick={() => void stop()}>
              Stop
            </button>
          ) : (
            <button type="submit" className="btn small primary" disabled={!draft.trim()}>
              Send
            </button>
          )}
        </div>
      </form>
    </aside>
  );
}

function Message({
  message,
  onApprove,
  onChip,
}: {
  message: UIMessage;
  onApprove: (approvalId: string, approved: boolean) => void;
  onChip: (chip: Chip) => Promise<void>;
}) {
  if (message.role === 'user') {
    const text = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    return (
      <div className="msg user">
        <div className="bubble">{text}</div>
      </div>
    );
  }
  const usage = usageOf(message.metadata);
  return (
    <div className="msg assistant" data-testid="assistant-message">
      {message.parts.map((part, index) => {
        const key = `${message.id}-${index}`;
        if (part.type === 'text') {
          return part.text ? (
            <div key={key} className="text">
              {part.text}
            </div>
          ) : null;
        }
        if (isToolUIPart(part))
          return <ToolCall key={key} part={part} onApprove={onApprove} onChip={onChip} />;
        return null;
      })}
      {usage ? (
        <div className="msg-foot">
          <span
            className="pill"
            data-testid="token-pill"
            title="Tokens this turn: input, output, and input served from cache"
          >
            {formatUsage(usage)}
          </span>
        </div>
      ) : null}
    </div>
  );
}

function ToolCall({
  part,
  onApprove,
  onChip,
}: {
  part: ToolPart;
  onApprove: (approvalId: string, approved: boolean) => void;
  onChip: (chip: Chip) => Promise<void>;
}) {
  const name = getToolName(part);
  const [chipState, setChipState] = useState<'idle' | 'running' | 'done' | Error>('idle');

  if (part.state === 'approval-requested') {
    return (
      <fieldset className="approval" data-testid="approval">
        <legend className="q">
          Allow <span className="mono">{name}</span>? <ToolBadges name={name} />
        </legend>
        {part.approval.requestReason ? <div className="muted">{part.approval.requestReason}</div> : null}
        <pre>{JSON.stringify(part.input, null, 2)}</pre>
        <div className="actions">
          <button
            type="button"
            className="btn small primary"
            onClick={() => onApprove(part.approval.id, true)}
          >
            Allow
          </button>
          <button type="button" className="btn small" onClick={() => onApprove(part.approval.id, false)}>
            Deny
          </button>
        </div>
      </fieldset>
    );
  }

  const chip = part.state === 'output-available' ? chipOf(name, part.output) : null;
  if (chip) {
    return (
      <>
        <button
          type="button"
          className="chip"
          data-testid="chip"
          disabled={chipState === 'running' || chipState === 'done'}
          title={`${chip.tool}(${summarizeInput(chip.input)}): runs when you click`}
          onClick={() => {
            setChipState('running');
            onChip(chip)
              .then(() => setChipState('done'))
              .catch((error: unknown) =>
                setChipState(error instanceof Error ? error : new Error(String(error))),
              );
          }}
        >
          {chipState === 'done' ? '✓ ' : '→ '}
          {chip.label}
        </button>
        {chipState instanceof Error ? <ErrorBox error={chipState} /> : null}
      </>
    );
  }

  const stateLabel: Record<ToolPart['state'], string> = {
    'input-streaming': 'preparing…',
    'input-available': 'running…',
    'approval-requested': 'waiting for you',
    'approval-responded': part.approval?.approved ? 'approved' : 'denied',
    'output-available': 'done',
    'output-error': 'error',
    'output-denied': 'denied by you',
  };
  const detail =
    part.state === 'output-available'
      ? JSON.stringify(part.output, null, 2)
      : part.state === 'output-error'
        ? part.errorText
        : JSON.stringify(part.input ?? null, null, 2);
  return (
    <details className="toolcall" data-testid="tool-call" data-tool={name} data-state={part.state}>
      <summary>
        <span className="tname">{name}</span>
        <ToolBadges name={name} />
        <span
          className="muted"
          style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}
        >
          {summarizeInput(part.input)}
        </span>
        <span
          className="state"
          style={
            part.state === 'output-denied' || part.state === 'output-error'
              ? { color: 'var(--danger)' }
              : undefined
          }
        >
          {stateLabel[part.state]}
        </span>
      </summary>
      <pre>{detail}</pre>
    </details>
  );
}

import { useChat } from '@ai-sdk/react';
import { describeCall } from '@toolrow/catalog';
import {
  DefaultChatTransport,
  type DynamicToolUIPart,
  generateId,
  getToolName,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type ToolUIPart,
  type UIMessage,
} from 'ai';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  type AppStatus,
  api,
  type Chip,
  type ConversationSummary,
  changeHeaders,
  PERMISSION_MODES,
  type PermissionMode,
} from './api.ts';
import { ChartCard, chartOf } from './ChartCard.tsx';
import { chipOf, formatUsage, summarizeInput, usageOf } from './chat-parts.ts';
import { Markdown } from './Markdown.tsx';
import { allowed } from './permissions.ts';
import { ErrorBox, ToolBadges, When } from './widgets.tsx';

export interface ChatPanelProps {
  status: AppStatus | null;
  mode: PermissionMode;
  onModeChange: (mode: PermissionMode) => void;
  /** A chip was clicked: run its tool as the user; resolves to its output. Rejects with a readable error. */
  onChip: (chip: Chip) => Promise<unknown>;
  /** Opens a chart's read in a new workbench tab. */
  onOpenSql: (sql: string) => void;
  /** A turn ended (or paused for an approval): the agent may have changed tabs, staging or the audit log. */
  onTurnSettled: () => void;
  inputRef: React.RefObject<HTMLTextAreaElement | null>;
}

type ToolPart = ToolUIPart | DynamicToolUIPart;

/** How many saved conversations the History list shows. */
const RECENT = 20;

interface OpenConversation {
  id: string;
  /** The messages the chat starts from (stored ones, or none for a new conversation). */
  messages: UIMessage[];
}

const fresh = (): OpenConversation => ({ id: generateId(), messages: [] });

/**
 * The chat sidebar. The server saves a conversation when each turn ends; on load this reopens the
 * most recent one, and History switches between recent ones. Each conversation is its own useChat
 * (keyed by id), so switching never mixes two histories.
 */
export function ChatPanel(props: ChatPanelProps) {
  const [current, setCurrent] = useState<OpenConversation | null>(null);
  const [recent, setRecent] = useState<ConversationSummary[]>([]);
  const [problem, setProblem] = useState<unknown>(null);

  const refresh = useCallback(
    () =>
      api
        .conversations(RECENT)
        .then((result) => {
          setRecent(result.conversations);
          return result.conversations;
        })
        .catch((error: unknown) => {
          setProblem(error);
          return [] as ConversationSummary[];
        }),
    [],
  );

  const open = useCallback((id: string) => {
    setProblem(null);
    return api
      .conversation(id)
      .then((conversation) => setCurrent({ id: conversation.id, messages: conversation.messages }))
      .catch((error: unknown) => setProblem(error));
  }, []);

  useEffect(() => {
    let cancelled = false;
    void refresh().then(async (list) => {
      if (cancelled) return;
      const latest = list[0];
      if (latest) await open(latest.id);
      // Nothing saved yet, or the latest could not be loaded (the error shows): start afresh.
      setCurrent((state) => state ?? fresh());
    });
    return () => {
      cancelled = true;
    };
  }, [refresh, open]);

  const settled = useRef(props.onTurnSettled);
  settled.current = props.onTurnSettled;
  const onTurnSettled = useCallback(() => {
    settled.current();
    void refresh();
  }, [refresh]);

  const remove = useCallback(
    (id: string) => {
      setProblem(null);
      api
        .deleteConversation(id)
        .then(() => {
          setCurrent((state) => (state?.id === id ? fresh() : state));
          return refresh();
        })
        .catch((error: unknown) => setProblem(error));
    },
    [refresh],
  );

  if (!current) {
    return (
      <aside className="chat" aria-label="Chat with the agent" aria-busy="true">
        <div className="chat-head">
          <span className="title">Agent</span>
        </div>
        <div className="chat-log">
          <div className="faint">Opening your last conversation…</div>
        </div>
      </aside>
    );
  }
  return (
    <ChatSession
      key={current.id}
      {...props}
      conversationId={current.id}
      initialMessages={current.messages}
      recent={recent}
      problem={problem}
      onTurnSettled={onTurnSettled}
      onOpen={(id) => void open(id)}
      onNew={() => {
        setProblem(null);
        setCurrent(fresh());
      }}
      onDelete={remove}
    />
  );
}

interface ChatSessionProps extends ChatPanelProps {
  conversationId: string;
  initialMessages: UIMessage[];
  recent: ConversationSummary[];
  /** A conversation could not be listed, loaded or deleted: shown, with the server's hint. */
  problem: unknown;
  onOpen: (id: string) => void;
  onNew: () => void;
  onDelete: (id: string) => void;
}

function ChatSession(props: ChatSessionProps) {
  const [draft, setDraft] = useState('');
  const [historyOpen, setHistoryOpen] = useState(false);
  const historyButton = useRef<HTMLButtonElement>(null);
  // Team mode: the turn is a change like any other, and carries the session's CSRF token.
  const transport = useMemo(() => new DefaultChatTransport({ api: '/api/chat', headers: changeHeaders }), []);
  const { messages, sendMessage, status, error, stop, addToolApprovalResponse, regenerate } = useChat({
    id: props.conversationId,
    messages: props.initialMessages,
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

  // Team mode: the mode is an admin's to change; others see it, and why they cannot.
  const modeAllowed = allowed('mode');
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
              title={modeAllowed.ok ? option.hint : modeAllowed.why}
              disabled={!modeAllowed.ok && props.mode !== option.mode}
              onClick={() => props.onModeChange(option.mode)}
            >
              {option.label}
            </button>
          ))}
        </div>
        <button
          ref={historyButton}
          type="button"
          className="btn small ghost"
          aria-label="Conversation history"
          title="Your recent conversations"
          aria-expanded={historyOpen}
          aria-controls="conversation-list"
          onClick={() => setHistoryOpen((value) => !value)}
        >
          History
        </button>
        <button
          type="button"
          className="btn small ghost"
          aria-label="New conversation"
          title="Start a new conversation (this one stays in History)"
          disabled={busy || messages.length === 0}
          onClick={props.onNew}
        >
          New
        </button>
      </div>
      {historyOpen ? (
        <ConversationList
          recent={props.recent}
          currentId={props.conversationId}
          busy={busy}
          onOpen={(id) => {
            setHistoryOpen(false);
            if (id !== props.conversationId) props.onOpen(id);
          }}
          onDelete={props.onDelete}
          onClose={() => {
            setHistoryOpen(false);
            historyButton.current?.focus();
          }}
        />
      ) : null}
      {props.problem ? <ErrorBox error={props.problem} /> : null}
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
        {messages.map((message, index) => (
          <Message
            key={message.id}
            message={message}
            streaming={status === 'streaming' && index === messages.length - 1}
            onRetry={index === messages.length - 1 && !busy && !error ? () => void regenerate() : undefined}
            onApprove={(id, approved) =>
              void addToolApprovalResponse({
                id,
                approved,
                reason: approved ? undefined : 'The user denied this action.',
              })
            }
            onChip={props.onChip}
            onOpenSql={props.onOpenSql}
          />
        ))}
        {status === 'submitted' ? <div className="faint">Thinking…</div> : null}
        {error ? (
          <div data-testid="chat-error">
            <ErrorBox error={error} />
            {/* The same turn again: the failed answer is dropped and the last message is sent anew. */}
            <button type="button" className="btn small" disabled={busy} onClick={() => void regenerate()}>
              Retry
            </button>
          </div>
        ) : null}
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
          disabled={!allowed('chat').ok}
          title={allowed('chat').why}
          placeholder={allowed('chat').why ?? 'Ask about your data…'}
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

/** The recent conversations: Enter opens one, arrows move, Escape closes; delete asks once more. */
function ConversationList(props: {
  recent: ConversationSummary[];
  currentId: string;
  busy: boolean;
  onOpen: (id: string) => void;
  onDelete: (id: string) => void;
  onClose: () => void;
}) {
  const list = useRef<HTMLUListElement>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  useEffect(() => {
    const buttons = list.current?.querySelectorAll<HTMLButtonElement>('button.conv-open:not(:disabled)');
    const current = list.current?.querySelector<HTMLButtonElement>('button.conv-open[aria-current="true"]');
    (current ?? buttons?.[0])?.focus();
  }, []);
  const move = (event: React.KeyboardEvent, step: number) => {
    const buttons = [...(list.current?.querySelectorAll<HTMLButtonElement>('button.conv-open') ?? [])];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = buttons[Math.min(buttons.length - 1, Math.max(0, at + step))];
    if (next) {
      event.preventDefault();
      next.focus();
    }
  };
  return (
    <div className="conv-list" id="conversation-list" data-testid="conversation-list">
      {props.recent.length === 0 ? (
        <div className="faint">No saved conversations yet: each one is kept when the agent answers.</div>
      ) : (
        <ul
          ref={list}
          aria-label="Recent conversations"
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.preventDefault();
              props.onClose();
            } else if (event.key === 'ArrowDown') move(event, 1);
            else if (event.key === 'ArrowUp') move(event, -1);
          }}
        >
          {props.recent.map((conversation) => {
            const isCurrent = conversation.id === props.currentId;
            return (
              <li key={conversation.id} data-testid="conversation-item">
                <button
                  type="button"
                  className="conv-open"
                  aria-current={isCurrent}
                  disabled={props.busy && !isCurrent}
                  title={props.busy ? 'Wait for the answer (or stop it) to switch' : conversation.title}
                  onClick={() => props.onOpen(conversation.id)}
                >
                  <span className="conv-title">{conversation.title}</span>
                  <span className="faint">
                    <When iso={conversation.updatedAt} /> · {conversation.messageCount}{' '}
                    {conversation.messageCount === 1 ? 'message' : 'messages'}
                  </span>
                </button>
                {confirming === conversation.id ? (
                  <button
                    type="button"
                    className="btn small danger"
                    disabled={props.busy && isCurrent}
                    onBlur={() => setConfirming(null)}
                    onClick={() => {
                      setConfirming(null);
                      props.onDelete(conversation.id);
                    }}
                  >
                    Delete
                  </button>
                ) : (
                  <button
                    type="button"
                    className="btn small ghost"
                    aria-label={`Delete the conversation “${conversation.title}”`}
                    title="Delete this conversation"
                    disabled={props.busy && isCurrent}
                    onClick={(event) => {
                      setConfirming(conversation.id);
                      // The confirm button replaces this one: keep the focus on it.
                      const item = event.currentTarget.parentElement;
                      setTimeout(() => item?.querySelector<HTMLButtonElement>('button.danger')?.focus(), 0);
                    }}
                  >
                    ×
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

function Message({
  message,
  streaming,
  onApprove,
  onChip,
  onOpenSql,
  onRetry,
}: {
  message: UIMessage;
  streaming: boolean;
  onApprove: (approvalId: string, approved: boolean) => void;
  onChip: (chip: Chip) => Promise<unknown>;
  onOpenSql: (sql: string) => void;
  /** The last answer only: runs its turn again. */
  onRetry?: (() => void) | undefined;
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
              <Markdown text={part.text} streaming={streaming && part.state === 'streaming'} />
            </div>
          ) : null;
        }
        if (isToolUIPart(part))
          return (
            <ToolCall key={key} part={part} onApprove={onApprove} onChip={onChip} onOpenSql={onOpenSql} />
          );
        // A turn that failed, as it was saved: what failed, and (on the last answer) Retry.
        if (part.type === 'data-turn-error') {
          const { message: text } = (part.data ?? {}) as { message?: string };
          return (
            <div key={key} data-testid="chat-error">
              <ErrorBox error={new Error(text ?? 'This turn failed.')} />
              {onRetry ? (
                <button type="button" className="btn small" onClick={onRetry}>
                  Retry
                </button>
              ) : null}
            </div>
          );
        }
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
  onOpenSql,
}: {
  part: ToolPart;
  onApprove: (approvalId: string, approved: boolean) => void;
  onChip: (chip: Chip) => Promise<unknown>;
  onOpenSql: (sql: string) => void;
}) {
  const name = getToolName(part);
  const [chipState, setChipState] = useState<'idle' | 'running' | 'done' | Error>('idle');
  // What the chip's click returned: a chart is drawn under its chip.
  const [chipOutput, setChipOutput] = useState<unknown>(null);

  if (part.state === 'approval-requested') {
    return (
      <fieldset className="approval" data-testid="approval">
        <legend className="q">
          Allow <span className="mono">{name}</span>? <ToolBadges name={name} />
        </legend>
        <p className="approval-summary" data-testid="approval-summary">
          {describeCall(name, part.input)}
        </p>
        {part.approval.requestReason ? <div className="muted">{part.approval.requestReason}</div> : null}
        <details>
          <summary>Input</summary>
          <pre>{JSON.stringify(part.input, null, 2)}</pre>
        </details>
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
              .then((output) => {
                setChipOutput(output);
                setChipState('done');
              })
              .catch((error: unknown) =>
                setChipState(error instanceof Error ? error : new Error(String(error))),
              );
          }}
        >
          {chipState === 'done' ? '✓ ' : '→ '}
          {chip.label}
        </button>
        {chipState instanceof Error ? <ErrorBox error={chipState} /> : null}
        <ChartOf output={chipOutput} onOpenSql={onOpenSql} />
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
  const call = (
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
  return part.state === 'output-available' && chartOf(part.output) ? (
    <>
      <ChartOf output={part.output} onOpenSql={onOpenSql} />
      {call}
    </>
  ) : (
    call
  );
}

/** The chart a tool's output carries, drawn as a card; nothing when it carries none. */
function ChartOf({ output, onOpenSql }: { output: unknown; onOpenSql: (sql: string) => void }) {
  const chart = chartOf(output);
  return chart ? (
    <ChartCard
      {...chart}
      onOpenSql={onOpenSql}
      onSave={(name, display) => api.saveChart(name, display.sql, display.chart)}
    />
  ) : null;
}

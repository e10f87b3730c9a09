// Settings → Model: the provider, where it is and its credentials, a model from the provider's own
// list, a Test that makes one tiny call, and Save, which the next chat message uses (no restart).
import { useEffect, useState } from 'react';
import { api, type ModelChoice, type ModelSettingsView, type ModelTestResult } from './api.ts';
import { allowed } from './permissions.ts';
import { FormDialog } from './widgets.tsx';

const PROVIDERS: { id: string; label: string; key: 'required' | 'optional' | 'none' }[] = [
  { id: 'openai-compatible', label: 'OpenAI-compatible (Ollama, vLLM, LM Studio…)', key: 'optional' },
  { id: 'bedrock', label: 'Amazon Bedrock (your AWS profile)', key: 'none' },
  { id: 'anthropic', label: 'Anthropic', key: 'required' },
  { id: 'openai', label: 'OpenAI', key: 'required' },
];

export function ModelSettingsDialog({ onClose, onSaved }: { onClose: () => void; onSaved: () => void }) {
  const [view, setView] = useState<ModelSettingsView | null>(null);
  const [provider, setProvider] = useState('openai-compatible');
  const [baseURL, setBaseURL] = useState('http://127.0.0.1:11434/v1');
  const [region, setRegion] = useState('');
  const [awsProfile, setAwsProfile] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [modelId, setModelId] = useState('');
  const [models, setModels] = useState<{ id: string; name?: string }[] | null>(null);
  const [busy, setBusy] = useState<'list' | 'test' | 'save' | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [tested, setTested] = useState<ModelTestResult | null>(null);

  useEffect(() => {
    api
      .modelSettings()
      .then((loaded) => {
        setView(loaded);
        const saved = loaded.saved;
        if (!saved) return;
        setProvider(saved.provider);
        if (saved.baseURL) setBaseURL(saved.baseURL);
        if (saved.region) setRegion(saved.region);
        if (saved.awsProfile) setAwsProfile(saved.awsProfile);
        setModelId(saved.modelId);
      })
      .catch((error) => setProblem(error instanceof Error ? error.message : String(error)));
  }, []);

  const kind = PROVIDERS.find((each) => each.id === provider) ?? PROVIDERS[0];
  const savedKey = Boolean(view?.saved?.hasKey && view.saved.provider === provider);
  const choice = (): ModelChoice => ({
    provider,
    modelId,
    ...(provider === 'openai-compatible' ? { baseURL } : {}),
    ...(provider === 'bedrock' ? { region, ...(awsProfile ? { awsProfile } : {}) } : {}),
    ...(apiKey ? { apiKey } : {}),
  });
  const run = <T,>(what: 'list' | 'test' | 'save', call: () => Promise<T>, then: (value: T) => void) => {
    setBusy(what);
    setProblem(null);
    call()
      .then(then)
      .catch((error) => setProblem(error instanceof Error ? error.message : String(error)))
      .finally(() => setBusy(null));
  };

  return (
    <FormDialog label="Model settings" title={`Model${view ? ` for ${view.profile}` : ''}`} onClose={onClose}>
      <form
        className="connection-form"
        onSubmit={(event) => {
          event.preventDefault();
          run(
            'save',
            () => api.saveModel(choice()),
            (saved) => {
              setView(saved);
              onSaved();
              onClose();
            },
          );
        }}
      >
        <p className="faint" style={{ margin: 0 }} data-testid="model-now">
          {view?.active
            ? `The chat uses ${view.active}${view.saved ? ' (saved here)' : ' (from TOOLROW_MODEL)'}.`
            : 'No model yet: pick one below.'}{' '}
          Saved per connection; the CLI uses it too. Keys are sealed, never stored in plain text.
        </p>
        <label>
          Provider
          <select
            value={provider}
            onChange={(event) => {
              setProvider(event.target.value);
              setModels(null);
              setTested(null);
            }}
          >
            {PROVIDERS.map((each) => (
              <option key={each.id} value={each.id}>
                {each.label}
              </option>
            ))}
          </select>
        </label>
        <ProviderFields
          provider={provider}
          keyNeed={kind?.key ?? 'optional'}
          savedKey={savedKey}
          baseURL={baseURL}
          onBaseURL={setBaseURL}
          region={region}
          onRegion={setRegion}
          awsProfile={awsProfile}
          onAwsProfile={setAwsProfile}
          apiKey={apiKey}
          onApiKey={setApiKey}
        />
        <div style={{ display: 'flex', gap: 6, alignItems: 'end' }}>
          <label style={{ flex: 1 }}>
            Model
            <input
              list="model-list"
              value={modelId}
              onChange={(event) => {
                setModelId(event.target.value);
                setTested(null);
              }}
              placeholder="load the list, or type the id"
              required
            />
          </label>
          <button
            type="button"
            className="btn"
            disabled={busy !== null}
            onClick={() =>
              run(
                'list',
                () => api.listModels(choice()),
                (listed) => {
                  setModels(listed.models);
                  if (!modelId && listed.models[0]) setModelId(listed.models[0].id);
                },
              )
            }
          >
            {busy === 'list' ? 'Loading…' : 'Load models'}
          </button>
        </div>
        <datalist id="model-list">
          {(models ?? []).map((model) => (
            <option key={model.id} value={model.id}>
              {model.name ?? model.id}
            </option>
          ))}
        </datalist>
        {models ? (
          <span className="faint" data-testid="model-count">
            {models.length} model{models.length === 1 ? '' : 's'} offered
          </span>
        ) : null}
        {tested ? (
          <p role="status" className={tested.ok ? '' : 'form-error'} data-testid="model-test">
            {tested.ok
              ? `${modelId} answered in ${tested.ms} ms: “${tested.text || '(empty)'}”`
              : `The test call failed after ${tested.ms} ms: ${tested.message}`}
          </p>
        ) : null}
        {problem ? (
          <p className="form-error" role="alert">
            {problem}
          </p>
        ) : null}
        <div className="actions">
          <button
            type="button"
            className="btn"
            disabled={busy !== null || !modelId}
            onClick={() => run('test', () => api.testModel(choice()), setTested)}
          >
            {busy === 'test' ? 'Testing…' : 'Test'}
          </button>
          <button
            type="submit"
            className="btn primary"
            disabled={busy !== null || !allowed('model').ok}
            title={allowed('model').why}
          >
            {busy === 'save' ? 'Saving…' : 'Save'}
          </button>
          {view?.saved ? (
            <button
              type="button"
              className="btn ghost"
              disabled={busy !== null}
              title={view.env ? `Use TOOLROW_MODEL (${view.env}) again` : 'Forget the saved model and key'}
              onClick={() =>
                run(
                  'save',
                  () => api.clearModel(),
                  (cleared) => {
                    setView(cleared);
                    onSaved();
                  },
                )
              }
            >
              Forget
            </button>
          ) : null}
        </div>
      </form>
    </FormDialog>
  );
}

/** Where the provider is and its credentials: what each provider needs, and only that. */
function ProviderFields(props: {
  provider: string;
  keyNeed: 'required' | 'optional' | 'none';
  savedKey: boolean;
  baseURL: string;
  onBaseURL: (value: string) => void;
  region: string;
  onRegion: (value: string) => void;
  awsProfile: string;
  onAwsProfile: (value: string) => void;
  apiKey: string;
  onApiKey: (value: string) => void;
}) {
  const {
    provider,
    keyNeed,
    savedKey,
    baseURL,
    onBaseURL,
    region,
    onRegion,
    awsProfile,
    onAwsProfile,
    apiKey,
    onApiKey,
  } = props;
  return (
    <>
      {provider === 'openai-compatible' ? (
        <label>
          Base URL
          <input value={baseURL} onChange={(event) => onBaseURL(event.target.value)} required />
        </label>
      ) : null}
      {provider === 'bedrock' ? (
        <>
          <label>
            Region
            <input
              value={region}
              onChange={(event) => onRegion(event.target.value)}
              placeholder="us-east-1"
              required
            />
          </label>
          <label>
            AWS profile
            <input
              value={awsProfile}
              onChange={(event) => onAwsProfile(event.target.value)}
              placeholder="default credentials chain"
            />
          </label>
        </>
      ) : null}
      {keyNeed !== 'none' ? (
        <label>
          API key{keyNeed === 'optional' ? ' (if the server wants one)' : ''}
          <input
            type="password"
            autoComplete="off"
            value={apiKey}
            onChange={(event) => onApiKey(event.target.value)}
            placeholder={savedKey ? 'saved (sealed); type to replace' : ''}
            required={keyNeed === 'required' && !savedKey}
          />
        </label>
      ) : null}
    </>
  );
}

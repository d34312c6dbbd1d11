import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, post } from '../api';
import { useConsole } from '../context';
import {
  commandState,
  isMissing,
  needsApproval,
  openDoor,
  readCommand,
  type CommandState,
} from '../link';
import { useErrorText } from './ErrorNote';

const POLL_MS = 1000;
const GIVE_UP_MS = 90_000;

type Phase =
  | { kind: 'form' }
  | { kind: 'checking' }
  | { kind: 'progress'; command: CommandState }
  | { kind: 'unavailable' };

/**
 * Opening a door from the console: the target named in full, a reason, the second factor
 * again (step-up), then the progress as the kiosk reports it: sent, received, and opened /
 * did not open / unknown / expired. One door at a time; there is no "open all".
 */
export function RemoteOpen({
  stationCode,
  stationName,
  door,
  onDone,
}: {
  stationCode: string;
  stationName: string;
  door: number;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const c = useConsole();
  const errorText = useErrorText();
  const [phase, setPhase] = useState<Phase>({ kind: 'form' });
  const [reason, setReason] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const status = useRef<HTMLDivElement>(null);
  useEffect(() => {
    setPhase({ kind: 'form' });
    setReason('');
    setCode('');
    setError(undefined);
  }, [door]);

  // Follows a command the server accepted (202) until the kiosk reports its outcome.
  useEffect(() => {
    if (phase.kind !== 'progress' || phase.command.stage === 'finished' || !phase.command.id)
      return;
    const id = phase.command.id;
    const started = Date.now();
    let stopped = false;
    const poll = async () => {
      while (!stopped && Date.now() - started < GIVE_UP_MS) {
        await new Promise((r) => setTimeout(r, POLL_MS));
        try {
          const command = readCommand(await commandState(id));
          if (stopped) return;
          setPhase({ kind: 'progress', command: { ...command, id } });
          if (command.stage === 'finished') return;
        } catch {
          // Keep asking: a dropped request says nothing about the door.
        }
      }
      if (!stopped)
        setPhase({
          kind: 'progress',
          command: { id, stage: 'finished', outcome: 'unknown', detail: {} },
        });
    };
    void poll();
    return () => {
      stopped = true;
    };
    // Only a new command starts a new poll.
  }, [phase.kind === 'progress' ? phase.command.id : null]);

  useEffect(() => {
    if (phase.kind === 'progress' && phase.command.stage === 'finished') {
      c.announce(t(`outcome.${phase.command.outcome ?? 'unknown'}`, { door }));
      onDone();
    }
  }, [phase, c, t, door, onDone]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setPhase({ kind: 'checking' });
    try {
      await post('/session/step-up', { code: code.trim() });
    } catch (failure) {
      setPhase({ kind: 'form' });
      setError(failure instanceof ApiError ? errorText(failure) : t('errors.unknown'));
      return;
    }
    setCode('');
    try {
      const answer = await openDoor(stationCode, door, reason.trim());
      setPhase({ kind: 'progress', command: readCommand(answer) });
    } catch (failure) {
      if (isMissing(failure)) setPhase({ kind: 'unavailable' });
      else if (needsApproval(failure)) {
        setPhase({ kind: 'form' });
        setError(t('remoteOpen.approval'));
      } else {
        setPhase({ kind: 'form' });
        setError(failure instanceof ApiError ? errorText(failure) : t('errors.unknown'));
      }
    }
    status.current?.focus();
  };

  const question = t('remoteOpen.question', { door, station: stationCode, name: stationName });
  if (phase.kind === 'unavailable')
    return (
      <div className="note warn" role="alert" ref={status} tabIndex={-1}>
        <p>{t('remoteOpen.unavailable')}</p>
        <button type="button" onClick={() => setPhase({ kind: 'form' })}>
          {t('common.back')}
        </button>
      </div>
    );
  if (phase.kind === 'progress') {
    const { stage, outcome } = phase.command;
    const steps: ['sent' | 'received' | 'finished', string][] = [
      ['sent', t('remoteOpen.sent')],
      ['received', t('remoteOpen.received')],
      ['finished', outcome ? t(`outcome.${outcome}`, { door }) : t('remoteOpen.waiting')],
    ];
    const reached = ['sent', 'received', 'finished'].indexOf(stage);
    return (
      <div className="remote-progress" ref={status} tabIndex={-1} aria-labelledby="remote-title">
        <h3 id="remote-title">{t('remoteOpen.progressTitle', { door, station: stationCode })}</h3>
        <ol className="progress" aria-live="polite">
          {steps.map(([key, label], i) => (
            <li key={key} className={i <= reached ? 'done' : 'todo'}>
              <span aria-hidden="true">{i <= reached ? '✓ ' : '… '}</span>
              {label}
            </li>
          ))}
        </ol>
        {stage === 'finished' && (
          <p className={`note ${outcome === 'opened' ? 'ok' : 'warn'}`} role="status">
            {t(`outcomeAdvice.${outcome ?? 'unknown'}`)}
          </p>
        )}
        {stage === 'finished' && (
          <button type="button" onClick={() => setPhase({ kind: 'form' })}>
            {t('common.done')}
          </button>
        )}
      </div>
    );
  }
  return (
    <form
      className="remote-open"
      onSubmit={(e) => void submit(e)}
      aria-labelledby="remote-question"
    >
      <h3 id="remote-question">{question}</h3>
      <p className="muted small">{t('remoteOpen.why')}</p>
      <label>
        {t('remoteOpen.reason')}
        <textarea
          required
          minLength={3}
          maxLength={500}
          rows={2}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      </label>
      <label>
        {t('remoteOpen.code')}
        <input
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          required
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
      </label>
      <button type="submit" className="danger" disabled={phase.kind === 'checking'}>
        {phase.kind === 'checking' ? t('remoteOpen.checking') : t('remoteOpen.submit', { door })}
      </button>
      {error && (
        <p className="note error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

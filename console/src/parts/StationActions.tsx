import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api';
import { useConsole } from '../context';
import {
  commandState,
  fetchLogs,
  isMissing,
  logsUrl,
  readCommand,
  refreshConfig,
  type CommandState,
} from '../link';
import { useErrorText } from './ErrorNote';

type Result =
  | { kind: 'command'; what: 'config' | 'logs'; command: CommandState }
  | { kind: 'unavailable' }
  | { kind: 'error'; text: string };

const POLL_MS = 1000;
const GIVE_UP_MS = 90_000;

/** Follows a command until the kiosk reports it (or it expires, or we stop asking). */
async function follow(command: CommandState, onUpdate: (c: CommandState) => void) {
  const started = Date.now();
  let current = command;
  while (current.stage !== 'finished' && current.id && Date.now() - started < GIVE_UP_MS) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    try {
      current = { ...readCommand(await commandState(current.id)), id: current.id };
      onUpdate(current);
    } catch {
      // Ask again: a dropped request says nothing about the kiosk.
    }
  }
  return current;
}

/** The kiosk as a whole: refresh its configuration, fetch its recent logs. */
export function StationActions({ stationCode }: { stationCode: string }) {
  const { t } = useTranslation();
  const c = useConsole();
  const errorText = useErrorText();
  const [busy, setBusy] = useState<'config' | 'logs'>();
  const [result, setResult] = useState<Result>();
  if (!c.can('terminals.manage')) return null;
  const run = async (what: 'config' | 'logs') => {
    setBusy(what);
    setResult(undefined);
    try {
      const answer =
        what === 'config' ? await refreshConfig(stationCode) : await fetchLogs(stationCode, 60);
      const command = readCommand(answer);
      setResult({ kind: 'command', what, command });
      const done = await follow(command, (next) =>
        setResult({ kind: 'command', what, command: next }),
      );
      c.announce(
        done.outcome === 'done'
          ? t(what === 'config' ? 'station.configDone' : 'station.logsReady')
          : t(`outcome.${done.outcome ?? 'unknown'}`, { door: '' }),
      );
    } catch (failure) {
      if (isMissing(failure)) setResult({ kind: 'unavailable' });
      else
        setResult({
          kind: 'error',
          text: failure instanceof ApiError ? errorText(failure) : t('errors.unknown'),
        });
    } finally {
      setBusy(undefined);
    }
  };
  const command = result?.kind === 'command' ? result.command : undefined;
  return (
    <section className="station-actions" aria-labelledby="station-actions">
      <h2 id="station-actions">{t('station.actions')}</h2>
      <p className="muted small">{t('station.actionsHint')}</p>
      <div className="row">
        <button type="button" disabled={busy !== undefined} onClick={() => void run('config')}>
          {t('station.refreshConfig')}
        </button>
        <button type="button" disabled={busy !== undefined} onClick={() => void run('logs')}>
          {t('station.fetchLogs')}
        </button>
      </div>
      <div role="status">
        {result?.kind === 'command' && command && (
          <p
            className={`note ${command.stage === 'finished' && command.outcome !== 'done' ? 'warn' : 'ok'}`}
          >
            {command.stage !== 'finished'
              ? command.stage === 'received'
                ? t('remoteOpen.received')
                : t('remoteOpen.sent')
              : command.outcome === 'done'
                ? t(result.what === 'config' ? 'station.configDone' : 'station.logsReady')
                : t(`outcomeAdvice.${command.outcome ?? 'unknown'}`)}{' '}
            {result.what === 'logs' && command.outcome === 'done' && command.id && (
              <a href={logsUrl(command.id)} download>
                {t('station.downloadLogs')}
              </a>
            )}
          </p>
        )}
        {result?.kind === 'unavailable' && (
          <p className="note warn">{t('station.linkUnavailable')}</p>
        )}
        {result?.kind === 'error' && <p className="note error">{result.text}</p>}
      </div>
    </section>
  );
}

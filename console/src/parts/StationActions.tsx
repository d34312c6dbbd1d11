import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api';
import { useConsole } from '../context';
import { fetchLogs, isMissing, readCommand, refreshConfig } from '../link';
import { useErrorText } from './ErrorNote';

type Result =
  { kind: 'ok'; text: string } | { kind: 'unavailable' } | { kind: 'error'; text: string };

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
      const link =
        (answer as { url?: unknown; download_url?: unknown } | undefined)?.download_url ??
        (answer as { url?: unknown } | undefined)?.url;
      setResult({
        kind: 'ok',
        text:
          what === 'config'
            ? t('station.configAsked')
            : typeof link === 'string'
              ? t('station.logsReady')
              : t('station.logsAsked', { id: command.id ?? '—' }),
      });
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
        {result?.kind === 'ok' && <p className="note ok">{result.text}</p>}
        {result?.kind === 'unavailable' && (
          <p className="note warn">{t('station.linkUnavailable')}</p>
        )}
        {result?.kind === 'error' && <p className="note error">{result.text}</p>}
      </div>
    </section>
  );
}

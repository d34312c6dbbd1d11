import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Refusal } from '../../bridge/api';
import type { AlternativesResult, OverflowChoice, RerouteResult } from '../../bridge/overflow';
import { kiosk } from '../bridge';
import { BackButton } from '../parts/BackButton';
import { group } from '../parts/Keypad';
import { Screen, type ScreenMessage } from '../parts/Screen';

/**
 * "850 m", "2.1 km" ("2,1 km" but in English). Written here, not by Intl: Chromium's
 * ICU data has no Albanian, and its Serbian writes "км" in Cyrillic, while the screen's
 * Serbian is Latin.
 */
export function distanceText(metres: number, language: string): string {
  if (metres < 1000) return `${Math.max(10, Math.round(metres / 10) * 10)} m`;
  const km = (metres / 1000).toFixed(1);
  return `${language === 'en' ? km : km.replace('.', ',')} km`;
}

type Phase =
  | { kind: 'looking' }
  | { kind: 'choose'; stations: OverflowChoice[]; filled: boolean }
  | { kind: 'sending'; stations: OverflowChoice[]; code: string }
  | { kind: 'rerouted'; station: OverflowChoice; recipientNotified: boolean }
  /** Nothing near has room, or the service cannot be asked (or refused). */
  | { kind: 'stuck'; why: 'none' | 'unavailable' };

function afterAlternatives(answer: AlternativesResult): Phase {
  if (answer.kind !== 'alternatives') return { kind: 'stuck', why: 'unavailable' };
  if (answer.stations.length === 0) return { kind: 'stuck', why: 'none' };
  return { kind: 'choose', stations: answer.stations, filled: false };
}

function afterReroute(answer: RerouteResult, code: string): Phase {
  if (answer.kind === 'rerouted') return answer;
  if (answer.kind === 'station_full') {
    // The chosen locker filled up meanwhile: the others that still have room.
    const stations = answer.stations.filter((s) => s.code !== code);
    if (stations.length === 0) return { kind: 'stuck', why: 'none' };
    return { kind: 'choose', stations, filled: true };
  }
  // Refused or unanswered: the courier still holds the parcel, and keeps it.
  return { kind: 'stuck', why: 'unavailable' };
}

/**
 * The locker is full for a courier's parcel (online): the nearest lockers with room, each
 * one tap; the chosen one holds a door, the recipient is told by SMS, and the courier is
 * told plainly where to take the parcel. Working on its own, the kiosk never comes here:
 * a booking cannot move without the service (the courier screen says the locker is full).
 */
export function OverflowScreen({
  courierNo,
  trackingNumber,
  size,
  back,
  next,
  finish,
}: {
  courierNo: string;
  trackingNumber: string;
  /** The size no door here was free for, when the service named it (its 409's `parcel_size`). */
  size: string | null;
  /** Keep the parcel: back to scanning. */
  back: () => void;
  /** Rerouted: the next parcel. */
  next: () => void;
  finish: () => void;
}) {
  const { t, i18n } = useTranslation();
  const [phase, setPhase] = useState<Phase>({ kind: 'looking' });
  useEffect(() => {
    let live = true;
    void kiosk
      .depositAlternatives(courierNo, trackingNumber)
      .catch((): Refusal => ({ kind: 'unavailable' }))
      .then((answer) => live && setPhase(afterAlternatives(answer)));
    return () => {
      live = false;
    };
  }, [courierNo, trackingNumber]);

  const choose = async (stations: OverflowChoice[], code: string) => {
    setPhase({ kind: 'sending', stations, code });
    const answer = await kiosk
      .rerouteDeposit(courierNo, trackingNumber, code)
      .catch((): Refusal => ({ kind: 'unavailable' }));
    setPhase(afterReroute(answer, code));
  };
  const away = (s: OverflowChoice) =>
    t('overflow.away', { distance: distanceText(s.distanceM, i18n.language) });
  // Which parcel: a courier at a full locker may hold several.
  const parcel = (
    <p className="overflow-parcel">
      {t('courier.tracking', { number: group(trackingNumber, [4]).join(' ') })}
    </p>
  );

  if (phase.kind === 'rerouted') {
    const { station } = phase;
    const destination = (where: string) => (
      <div className={`overflow-destination ${where}`}>
        <p className="overflow-name">{station.name}</p>
        {station.address && <p className="overflow-address">{station.address}</p>}
        <p className="overflow-distance">{away(station)}</p>
      </div>
    );
    return (
      <Screen
        name="courier-overflow-done"
        heading={t('overflow.goTo', { name: station.name })}
        instruction={t('overflow.held')}
        message={phase.recipientNotified ? { text: t('overflow.notified'), tone: 'success' } : null}
        speech={station.address ? t('overflow.address', { address: station.address }) : ''}
        // Where to go, as large as a label: read first in portrait, above the buttons; in
        // landscape, the half beside the reading (styles.css shows one of the two).
        info={
          <>
            {parcel}
            {destination('overflow-destination-reading')}
          </>
        }
        main={destination('overflow-destination-side')}
        actions={
          <>
            <button type="button" className="secondary" onClick={finish}>
              {t('courier.finish')}
            </button>
            <button type="button" className="primary" onClick={next}>
              {t('courier.next')}
            </button>
          </>
        }
      />
    );
  }

  const stations = phase.kind === 'choose' || phase.kind === 'sending' ? phase.stations : [];
  let instruction: string = t('overflow.looking');
  let message: ScreenMessage | null = null;
  if (phase.kind === 'choose' || phase.kind === 'sending') instruction = t('overflow.choose');
  if (phase.kind === 'choose' && phase.filled)
    message = { text: t('overflow.filled'), tone: 'warning' };
  else if (size) message = { text: t('overflow.noDoor', { size }), tone: 'warning' };
  if (phase.kind === 'stuck') {
    instruction = t(phase.why === 'none' ? 'overflow.none' : 'overflow.unavailable');
  }
  const label = (s: OverflowChoice) => [s.name, s.address, away(s)].filter(Boolean).join(', ');
  return (
    <Screen
      name="courier-overflow"
      heading={t('overflow.title')}
      instruction={instruction}
      message={message}
      speech={stations.map((s, i) => `${i + 1}. ${label(s)}.`).join(' ')}
      info={parcel}
      actions={<BackButton onClick={back} label={t('overflow.keep')} />}
      main={
        stations.length > 0 && (
          <ol className="overflow-stations">
            {stations.map((s) => (
              <li key={s.code}>
                <button
                  type="button"
                  className="big big-quiet overflow-station"
                  aria-label={label(s)}
                  disabled={phase.kind === 'sending'}
                  onClick={() => void choose(stations, s.code)}
                >
                  <span className="overflow-name">{s.name}</span>
                  {s.address && <span className="overflow-address">{s.address}</span>}
                  <span className="overflow-distance">{away(s)}</span>
                  <span className="overflow-go" aria-hidden="true">
                    ›
                  </span>
                </button>
              </li>
            ))}
          </ol>
        )
      }
    />
  );
}

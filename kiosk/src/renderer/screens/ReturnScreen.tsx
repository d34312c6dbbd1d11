import { useTranslation } from 'react-i18next';
import { kiosk } from '../bridge';
import { BackButton } from '../parts/BackButton';
import { CodeEntry } from '../parts/CodeEntry';
import { DoorScreen } from '../parts/DoorScreen';
import type { ScreenProps } from './props';

/** The service's tracking numbers have 13 digits; a scanner may bring longer ones. */
export const TRACKING_MIN = 13;
export const TRACKING_MAX = 20;

export function ReturnScreen({ state, columns, home, back }: ScreenProps) {
  const { t } = useTranslation();
  return (
    <CodeEntry
      name="return"
      task="return"
      heading={t('return.title')}
      instruction={t('return.instruction')}
      state={state}
      back={back}
      keypad={{
        minLength: TRACKING_MIN,
        maxLength: TRACKING_MAX,
        groups: [4],
        acceptLetters: true,
      }}
      request={(tracking) => kiosk.startReturn(tracking)}
      opened={({ door, stale }) => (
        <DoorScreen
          name="return-door"
          state={state}
          columns={columns}
          door={door}
          stale={stale}
          texts={{ open: t('return.put'), done: t('return.thanks'), amiss: t('return.empty') }}
          finish={home}
          openActions={
            <BackButton label={t('return.cancel')} onClick={() => void kiosk.cancelReturn()} />
          }
          choiceActions={
            <>
              <button type="button" className="secondary" onClick={() => void kiosk.reopenReturn()}>
                {t('return.reopen')}
              </button>
              <button type="button" className="primary" onClick={() => void kiosk.finishReturn()}>
                {t('return.keep')}
              </button>
            </>
          }
        />
      )}
    />
  );
}

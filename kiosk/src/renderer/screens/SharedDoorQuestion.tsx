import { useTranslation } from 'react-i18next';
import { Screen } from '../parts/Screen';

/**
 * Issue 27: the parcel just scanned is for the person whose parcel the courier put in
 * `door`, and fits with it. The courier chooses: the same door (one code opens it for
 * both), or a door of its own. Two big buttons in reach; the same door is the primary.
 */
export function SharedDoorQuestion(props: {
  door: number;
  busy: boolean;
  onSame: () => void;
  onOwn: () => void;
}) {
  const { t } = useTranslation();
  const { door, busy } = props;
  return (
    <Screen
      name="courier-shared-door"
      heading={t('sharedDoor.heading')}
      instruction={t('sharedDoor.question', { door })}
      info={
        <p className="door-number door-closed_ok shared-door-number" aria-hidden="true">
          <span className="door-number-label">{t('door.number')}</span>
          <span className="door-number-value">{door}</span>
        </p>
      }
      actions={
        <>
          <button type="button" className="secondary" disabled={busy} onClick={props.onOwn}>
            {t('sharedDoor.no')}
          </button>
          <button type="button" className="primary" disabled={busy} onClick={props.onSame}>
            {t('sharedDoor.yes', { door })}
          </button>
        </>
      }
    />
  );
}

// The public surface of the kiosk for other packages (`pnpm start`, the journeys in
// test/): its core, the browser host and the bridge's method list.
export { loadKioskConfig, writeKioskConfig } from './core/config';
export { KioskCore } from './core/kiosk';
export { startBrowserHost, type BrowserHost } from './hosts/browserHost';
export { RENDERER_DIR, launchChromium } from './hosts/browser';
export {
  KIOSK_METHODS,
  type DoorPhaseName,
  type KioskState,
  type ServiceCondition,
} from './bridge/api';
export { openKioskDatabase } from './core/database';
export { hashTechnicianPin } from './core/technician';
// The screen's texts and what the speaker announces, for the tests that check speech.
export * as texts from './renderer/i18n/texts';
export type { SpeechWarmDetail, SpokenDetail } from './renderer/speech/speaker';
// A kiosk's life in the field: enrolment with a one-time code, its stored credentials.
export { enrol, EnrolmentError } from './core/enrolment';
export { readCredentials, writeCredentials } from './core/credentials';
export { DeviceToken, ROTATION_STEPS, type RotationStep } from './core/deviceToken';
// Signed, staged updates: a release made and signed, the A/B slots, the launcher.
export { makeBundle, signRelease, signedByReleaseKey, digestOf } from './updater/release';
export { Slots, type SlotState } from './updater/slots';

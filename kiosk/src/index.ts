// The public surface of the kiosk for other packages (`pnpm start`, the journeys in
// test/): its core, the browser host and the bridge's method list.
export { loadKioskConfig, writeKioskConfig } from './core/config';
export { KioskCore } from './core/kiosk';
export { startBrowserHost, type BrowserHost } from './hosts/browserHost';
export { RENDERER_DIR, launchChromium } from './hosts/browser';
export { KIOSK_METHODS } from './bridge/api';

// Electron's main process: a thin host of the kiosk core. Everything the kiosk does lives
// in ../core and runs the same under the browser host.
import { app, BrowserWindow, ipcMain, session } from 'electron';
import path from 'node:path';
import { KIOSK_METHODS, type KioskState } from '../bridge/api';
import { dispatch } from '../bridge/dispatch';
import { loadKioskConfig } from '../core/config';
import { KioskCore } from '../core/kiosk';
import { CONTENT_SECURITY_POLICY } from '../hosts/csp';

const rendererDir = path.join(__dirname, '../renderer');

async function start(): Promise<void> {
  const core = await KioskCore.start(
    loadKioskConfig(process.env.KIOSK_CONFIG ?? '/etc/parcel-locker/kiosk.json', {
      unenrolled: 'allow',
    }),
  );
  session.defaultSession.webRequest.onHeadersReceived((details, callback) =>
    callback({
      responseHeaders: {
        ...details.responseHeaders,
        'Content-Security-Policy': [CONTENT_SECURITY_POLICY],
      },
    }),
  );
  // The camera reads pickup QR codes; every other permission a page may ask is refused.
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback) =>
    callback(permission === 'media'),
  );
  for (const method of KIOSK_METHODS) {
    ipcMain.handle(`kiosk:${method}`, (_event, ...args: unknown[]) => dispatch(core, method, args));
  }
  const window = new BrowserWindow({
    kiosk: true,
    autoHideMenuBar: true,
    webPreferences: {
      preload: path.join(__dirname, '../preload/preload.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  core.on('state', (state: KioskState) => window.webContents.send('kiosk:state', state));
  // Only the packaged renderer is ever shown; navigation elsewhere is refused.
  window.webContents.on('will-navigate', (event) => event.preventDefault());
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  await window.loadFile(path.join(rendererDir, 'index.html'));
  // Quitting waits for the core to close in order (its database last), then exits.
  let stopping: Promise<void> | undefined;
  app.on('before-quit', (event) => {
    event.preventDefault();
    stopping ??= core.stop().then(
      () => app.exit(0),
      (error: unknown) => {
        console.error(error);
        app.exit(1);
      },
    );
  });
}

app.whenReady().then(start, (error: unknown) => {
  console.error(error);
  app.exit(1);
});

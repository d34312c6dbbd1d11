// Runs sandboxed with context isolation: only `electron`'s contextBridge and ipcRenderer,
// and the one typed bridge the renderer knows.
import { contextBridge, ipcRenderer } from 'electron';
import type { KioskApi, KioskState } from '../bridge/api';

const invoke = <K extends keyof KioskApi>(method: K, ...args: Parameters<KioskApi[K]>) =>
  ipcRenderer.invoke(`kiosk:${method}`, ...args) as ReturnType<KioskApi[K]>;

const bridge = {
  getState: () => invoke('getState'),
  pickup: (code) => invoke('pickup', code),
  verifyCourier: (courierNo) => invoke('verifyCourier', courierNo),
  deposit: (courierNo, trackingNumber) => invoke('deposit', courierNo, trackingNumber),
  checkSharedDoor: (courierNo, trackingNumber, door) =>
    invoke('checkSharedDoor', courierNo, trackingNumber, door),
  depositShared: (courierNo, trackingNumber, door) =>
    invoke('depositShared', courierNo, trackingNumber, door),
  depositAlternatives: (courierNo, trackingNumber) =>
    invoke('depositAlternatives', courierNo, trackingNumber),
  rerouteDeposit: (courierNo, trackingNumber, stationCode) =>
    invoke('rerouteDeposit', courierNo, trackingNumber, stationCode),
  startReturn: (trackingNumber) => invoke('startReturn', trackingNumber),
  cancelReturn: () => invoke('cancelReturn'),
  finishReturn: () => invoke('finishReturn'),
  reopenReturn: () => invoke('reopenReturn'),
  collectReturns: (courierNo) => invoke('collectReturns', courierNo),
  stopCollecting: () => invoke('stopCollecting'),
  reportDoorProblem: (problem) => invoke('reportDoorProblem', problem),
  readSensors: () => invoke('readSensors'),
  technicianLogin: (pin) => invoke('technicianLogin', pin),
  enrol: (pin, code) => invoke('enrol', pin, code),
  subscribe: (listener: (state: KioskState) => void) => {
    const forward = (_event: unknown, state: KioskState) => listener(state);
    ipcRenderer.on('kiosk:state', forward);
    return () => ipcRenderer.off('kiosk:state', forward);
  },
} satisfies KioskApi & { subscribe(listener: (state: KioskState) => void): () => void };

contextBridge.exposeInMainWorld('kiosk', bridge);

import type { KioskState } from '../../bridge/api';

export interface ScreenProps {
  state: KioskState;
  /** The cabinet's columns of doors, from the cabinet file (null: not known yet). */
  columns: number[][] | null;
  /** Ends this person's visit: home, with the station's defaults. */
  home: () => void;
  /** Back to the start, keeping this person's language and options. */
  back: () => void;
}

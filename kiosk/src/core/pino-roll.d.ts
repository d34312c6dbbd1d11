// pino-roll ships no types; this is the part the kiosk uses (see its README).
declare module 'pino-roll' {
  /** A sonic-boom stream writing to the current file. */
  interface RollingFile extends NodeJS.EventEmitter {
    write(chunk: string): boolean;
    end(): void;
    flushSync(): void;
  }
  interface PinoRollOptions {
    file: string;
    size?: string | number;
    frequency?: 'daily' | 'hourly' | number;
    extension?: string;
    mkdir?: boolean;
    symlink?: boolean;
    limit?: { count?: number; removeOtherLogFiles?: boolean };
    dateFormat?: string;
  }
  export default function pinoRoll(options: PinoRollOptions): Promise<RollingFile>;
}

/** Stable codes a caller (the kiosk, the CLI) can branch on. */
export type LockDriverErrorCode =
  | 'TIMEOUT'
  | 'DISCONNECTED'
  | 'CLOSED'
  | 'PORT_NOT_FOUND'
  | 'PORT_BUSY'
  | 'PERMISSION_DENIED'
  | 'INVALID_ARGUMENT'
  | 'INVALID_CABINET'
  /** The board echoed another value than the one asked for (unlock time). */
  | 'MISMATCH'
  | 'BAD_FRAME';

export class LockDriverError extends Error {
  /** Bytes and timings behind the sentence, for `--verbose` and logs. */
  readonly detail: string | undefined;

  constructor(
    readonly code: LockDriverErrorCode,
    message: string,
    options?: { cause?: unknown; detail?: string },
  ) {
    super(message, options);
    this.name = 'LockDriverError';
    this.detail = options?.detail;
  }
}

/** Maps an OS error from opening a port to a code and a sentence a technician can act on. */
export function portOpenError(path: string, error: unknown): LockDriverError {
  const text = error instanceof Error ? error.message : String(error);
  if (/ENOENT|No such file/i.test(text)) {
    return new LockDriverError(
      'PORT_NOT_FOUND',
      `${path} does not exist: is the USB adapter plugged in? (lockctl ports lists what is there)`,
      { cause: error },
    );
  }
  if (/EACCES|Permission denied/i.test(text)) {
    return new LockDriverError(
      'PERMISSION_DENIED',
      `no permission to open ${path}: add the user to the "dialout" group or run as root`,
      { cause: error },
    );
  }
  if (/EBUSY|Resource busy|Cannot lock port/i.test(text)) {
    return new LockDriverError(
      'PORT_BUSY',
      `${path} is in use by another program (the kiosk app?): stop it first`,
      { cause: error },
    );
  }
  return new LockDriverError('DISCONNECTED', `could not open ${path}: ${text}`, { cause: error });
}

import jsQR from 'jsqr';
import { useEffect, useRef, useState } from 'react';

/** How often a frame is read, and how long the same QR code is ignored once read. */
const SCAN_EVERY_MS = 150;
const SAME_CODE_QUIET_MS = 8000;
/** A camera that would not start is asked again: after 1 s, then twice as long, up to 30 s. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;

/**
 * The kiosk's camera reading QR codes: a code shown from the recipient's page (or a
 * printed one) is handed to `onCode` exactly as if it had been typed, so it goes through
 * the same request and the same rate limit. Frames never leave this component. Without a
 * camera (none, or not allowed) nothing is shown. A camera that would not start (busy,
 * slow to come up, plugged in later) is asked again while the screen is up, unless it was
 * refused. The same code held up for a while is read once, not once a frame: every
 * reading would cost an attempt.
 */
export function CameraScanner({
  onCode,
  paused,
  hint,
}: {
  onCode: (text: string) => void;
  /** While a request is in flight or OK is locked (rate limit, out of service). */
  paused: boolean;
  hint: string;
}) {
  const video = useRef<HTMLVideoElement>(null);
  const [live, setLive] = useState(false);
  const latest = useRef({ onCode, paused });
  latest.current = { onCode, paused };

  useEffect(() => {
    let stopped = false;
    let stream: MediaStream | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let last = { text: '', at: 0 };
    const canvas = document.createElement('canvas');
    const context = canvas.getContext('2d', { willReadFrequently: true });
    const scan = () => {
      const v = video.current;
      if (!v || !context || v.readyState < 2 || v.videoWidth === 0) return;
      canvas.width = v.videoWidth;
      canvas.height = v.videoHeight;
      context.drawImage(v, 0, 0);
      const frame = context.getImageData(0, 0, canvas.width, canvas.height);
      const found = jsQR(frame.data, frame.width, frame.height, {
        inversionAttempts: 'attemptBoth',
      });
      if (!found?.data) return;
      const now = Date.now();
      if (found.data === last.text && now - last.at < SAME_CODE_QUIET_MS) return;
      if (latest.current.paused) return;
      last = { text: found.data, at: now };
      latest.current.onCode(found.data);
    };
    const loop = () => {
      if (stopped) return;
      timer = setTimeout(() => {
        scan();
        loop();
      }, SCAN_EVERY_MS);
    };
    if (!navigator.mediaDevices?.getUserMedia) return;
    const start = (retryMs: number) => {
      navigator.mediaDevices
        .getUserMedia({ video: { width: { ideal: 640 }, height: { ideal: 480 } }, audio: false })
        .then(async (s) => {
          if (stopped) {
            s.getTracks().forEach((t) => t.stop());
            return;
          }
          stream = s;
          const v = video.current;
          if (!v) return;
          v.srcObject = s;
          await v.play().catch(() => undefined);
          setLive(true);
          loop();
        })
        .catch((error: unknown) => {
          setLive(false);
          // Refused (the kiosk's permission): asking again would not change it.
          if (stopped || (error instanceof DOMException && error.name === 'NotAllowedError'))
            return;
          timer = setTimeout(() => start(Math.min(retryMs * 2, RETRY_MAX_MS)), retryMs);
        });
    };
    start(RETRY_FIRST_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
      stream?.getTracks().forEach((t) => t.stop());
    };
  }, []);

  return (
    <figure className="camera" hidden={!live}>
      <video ref={video} muted playsInline aria-hidden="true" />
      <figcaption>{hint}</figcaption>
    </figure>
  );
}

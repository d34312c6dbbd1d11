import { generate } from 'lean-qr';
import { toSvgPath } from 'lean-qr/extras/svg';
import { useMemo } from 'react';

/** A QR code a phone's camera turns into a call: `tel:` with the number as dialled. */
export function QrCode({ phone, label }: { phone: string; label: string }) {
  const code = useMemo(() => generate(`tel:${phone.replace(/[^+0-9]/g, '')}`), [phone]);
  const path = useMemo(() => toSvgPath(code), [code]);
  // Four modules of quiet zone, black on white in every colour scheme: scanners need it.
  return (
    <svg
      className="qr"
      role="img"
      aria-label={label}
      viewBox={`-4 -4 ${code.size + 8} ${code.size + 8}`}
      shapeRendering="crispEdges"
    >
      <rect x="-4" y="-4" width={code.size + 8} height={code.size + 8} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}

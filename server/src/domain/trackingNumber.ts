import { randomInt } from 'node:crypto';

/**
 * Tracking numbers are 13 digits, the last a Luhn check digit: digits only, so they can be
 * typed on a kiosk keypad, and any single mistyped digit or most swapped neighbours are
 * caught before a lookup.
 */
export const TRACKING_NUMBER_LENGTH = 13;

export function luhnCheckDigit(payload: string): number {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    let digit = Number(payload[payload.length - 1 - i]);
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return (10 - (sum % 10)) % 10;
}

export function isValidTrackingNumber(value: string): boolean {
  if (!/^\d{13}$/.test(value)) return false;
  return luhnCheckDigit(value.slice(0, -1)) === Number(value.at(-1));
}

export function newTrackingNumber(): string {
  // A leading 1-9 keeps the length fixed even where a tool drops leading zeros.
  let payload = String(randomInt(1, 10));
  while (payload.length < TRACKING_NUMBER_LENGTH - 1) payload += String(randomInt(0, 10));
  return payload + String(luhnCheckDigit(payload));
}

import { describe, expect, it } from 'vitest';
import { isValidTrackingNumber, luhnCheckDigit, newTrackingNumber } from './trackingNumber';

describe('tracking numbers', () => {
  it('are 13 digits ending in a Luhn check digit', () => {
    for (let i = 0; i < 200; i++) {
      const n = newTrackingNumber();
      expect(n).toMatch(/^[1-9]\d{12}$/);
      expect(isValidTrackingNumber(n)).toBe(true);
    }
    expect(luhnCheckDigit('7992739871')).toBe(3);
  });

  it('catch every single mistyped digit and swapped neighbours', () => {
    const n = newTrackingNumber();
    for (let i = 0; i < n.length; i++) {
      for (let d = 0; d <= 9; d++) {
        if (String(d) === n[i]) continue;
        expect(isValidTrackingNumber(n.slice(0, i) + d + n.slice(i + 1))).toBe(false);
      }
    }
    // Luhn catches every swap of neighbours except 09 <-> 90.
    for (let i = 0; i < n.length - 1; i++) {
      const [a, b] = [n[i]!, n[i + 1]!];
      if (a === b || a + b === '09' || a + b === '90') continue;
      expect(isValidTrackingNumber(n.slice(0, i) + b + a + n.slice(i + 2))).toBe(false);
    }
  });
});

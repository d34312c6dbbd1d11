import { describe, expect, it } from 'vitest';
import { isUuid } from './ids';
import { firstNameOf } from './people';
import { sizesFitting } from './sizes';

// The domain's small rules, each pure: no database, no server.
describe('sizesFitting', () => {
  it('answers the sizes a parcel fits into, smallest first, never a smaller one', () => {
    expect(sizesFitting('S')).toEqual(['S', 'M', 'L', 'XL']);
    expect(sizesFitting('M')).toEqual(['M', 'L', 'XL']);
    expect(sizesFitting('L')).toEqual(['L', 'XL']);
    expect(sizesFitting('XL')).toEqual(['XL']);
  });
});

describe('firstNameOf', () => {
  it('keeps only the first word of a full name, whatever the spacing', () => {
    expect(firstNameOf('Drita Gashi Berisha')).toBe('Drita');
    expect(firstNameOf('  Đorđe\tČolić ')).toBe('Đorđe');
    expect(firstNameOf('Elif')).toBe('Elif');
    expect(firstNameOf('   ')).toBe('');
  });
});

describe('isUuid', () => {
  it('accepts the UUID form in either case and nothing else', () => {
    expect(isUuid('0b7f3c2e-1d4a-4f8e-9a6b-2c5d8e1f0a3b')).toBe(true);
    expect(isUuid('0B7F3C2E-1D4A-4F8E-9A6B-2C5D8E1F0A3B')).toBe(true);
    for (const bad of [
      '',
      '0b7f3c2e1d4a4f8e9a6b2c5d8e1f0a3b',
      '0b7f3c2e-1d4a-4f8e-9a6b-2c5d8e1f0a3',
      "x' or 1=1",
    ])
      expect(isUuid(bad)).toBe(false);
  });
});

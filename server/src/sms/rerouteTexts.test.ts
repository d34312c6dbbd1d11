import { describe, expect, it } from 'vitest';
import { reroutedSms } from './rerouteTexts';

const facts = {
  firstName: 'Elif',
  trackingNumber: '4012888888881',
  fromStationName: 'Prizren Qendra',
  stationName: 'Prizren Marash',
  address: 'Rruga Remzi Ademaj 3',
};

describe('the reroute SMS', () => {
  it('names both lockers, the new address and the parcel in every language, and no code', () => {
    for (const language of ['sq', 'sr', 'tr', 'en'] as const) {
      const text = reroutedSms(language, facts);
      expect(text).toContain('Prizren Qendra');
      expect(text).toContain('Prizren Marash (Rruga Remzi Ademaj 3)');
      expect(text).toContain('4012888888881');
      expect(text).toContain('Elif');
      expect(text.replace('4012888888881', '')).not.toMatch(/\d{8}/);
    }
  });

  it('names the locker alone when it has no address', () => {
    expect(reroutedSms('en', { ...facts, address: null })).toContain(
      'the parcel locker Prizren Marash instead.',
    );
  });
});

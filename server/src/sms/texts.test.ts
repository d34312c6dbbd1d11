import { describe, expect, it } from 'vitest';
import { PICKUP_SMS_SEGMENTS, smsSegments } from './budget';
import { disregardCodeSms, pickupSms, redactCodes } from './texts';

const facts = {
  firstName: 'Elif',
  trackingNumber: '4012888888881',
  stationName: 'Prizren Qendra',
  code: '04172953',
  link: 'https://parcels.example/p/AbCdEfGhIjKlMnOp',
};

describe('pickup SMS texts', () => {
  it('inflect the hours as each language needs', () => {
    expect(pickupSms('en', { ...facts, hours: 1 })).toContain('within 1 hour.');
    expect(pickupSms('en', { ...facts, hours: 72 })).toContain('within 72 hours.');
    expect(pickupSms('sq', { ...facts, hours: 1 })).toContain('brenda 1 ore.');
    expect(pickupSms('sq', { ...facts, hours: 72 })).toContain('brenda 72 orëve.');
    expect(pickupSms('sr', { ...facts, hours: 72 })).toContain('u roku od 72 sata.');
    expect(pickupSms('sr', { ...facts, hours: 48 })).toContain('u roku od 48 sati.');
    expect(pickupSms('tr', { ...facts, hours: 72 })).toContain('72 saat içinde');
  });

  it('carry the code, the station and the tracking number in every language', () => {
    for (const language of ['sq', 'sr', 'tr', 'en'] as const) {
      const text = pickupSms(language, { ...facts, hours: 72 });
      expect(text).toContain('04172953');
      expect(text).toContain('Prizren Qendra');
      expect(text).toContain('4012888888881');
      expect(text).toContain('Elif');
    }
  });

  it('lose the code and the page link, and only those, once redacted', () => {
    const redacted = redactCodes(pickupSms('en', { ...facts, hours: 72 }));
    expect(redacted).not.toContain('04172953');
    expect(redacted).not.toContain('AbCdEfGhIjKlMnOp');
    expect(redacted).toContain('https://parcels.example/p/****');
    expect(redacted).toContain('4012888888881');
  });

  it("carry the link to the recipient's page within the budget they had without it", () => {
    // The longest case budgeted: a 16-character station name, a 27-character PUBLIC_URL.
    const long = {
      ...facts,
      firstName: 'Gjylfidane',
      stationName: 'Prishtina Qendra',
      link: 'https://parcels.example.com/p/AbCdEfGhIjKlMnOp',
      hours: 168,
    };
    for (const language of ['sq', 'sr', 'tr', 'en'] as const) {
      const text = pickupSms(language, long);
      expect(text).toContain(long.link);
      expect(smsSegments(text).segments, `${language}: ${text}`).toBeLessThanOrEqual(
        PICKUP_SMS_SEGMENTS[language],
      );
    }
    expect(smsSegments(pickupSms('en', long)).encoding).toBe('gsm7');
    expect(smsSegments('a'.repeat(160))).toEqual({ encoding: 'gsm7', units: 160, segments: 1 });
    expect(smsSegments('a'.repeat(161)).segments).toBe(2);
    expect(smsSegments('ë'.repeat(70)).segments).toBe(1);
    expect(smsSegments('ë'.repeat(135)).segments).toBe(3);
  });
});

describe('the notice to disregard a code', () => {
  it('names the parcel and the station in every language, each text its own', () => {
    const texts = (['sq', 'sr', 'tr', 'en'] as const).map((language) =>
      disregardCodeSms(language, facts),
    );
    for (const text of texts) {
      expect(text).toContain('Prizren Qendra');
      expect(text).toContain('4012888888881');
      expect(text).toContain('Elif');
    }
    expect(new Set(texts).size).toBe(4);
  });
});

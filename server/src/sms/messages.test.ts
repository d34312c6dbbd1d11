import { describe, expect, it } from 'vitest';
import {
  collectionReceipt,
  disregardCodeMessage,
  pickupCodeMessage,
  storageReminder,
  type ParcelRecipient,
} from './messages';

// Every SMS to a recipient, composed from the shipment's row: pure, no database.
const parcel: ParcelRecipient = {
  tracking_number: '4012888888881',
  recipient_name: 'Elif Yılmaz Demir',
  recipient_phone: '+38349123456',
  recipient_language: 'tr',
  station_name: 'Prizren Qendra',
};

describe('SMS to a recipient', () => {
  it('go to their phone in their language, naming them by first name only', () => {
    const messages = [
      pickupCodeMessage(parcel, '04172953', 72, 'https://parcels.example/p/AbCdEfGhIjKlMnOp'),
      collectionReceipt(parcel),
      disregardCodeMessage(parcel),
      storageReminder(parcel, 'free_storage_ending', 24),
      storageReminder(parcel, 'expiring', 12),
    ];
    for (const sms of messages) {
      expect(sms.to).toBe('+38349123456');
      expect(sms.language).toBe('tr');
      expect(sms.text).toContain('Merhaba Elif,');
      expect(sms.text).not.toContain('Yılmaz');
      expect(sms.text).toContain('4012888888881');
      expect(sms.text).toContain('Prizren Qendra');
    }
  });

  it('mark only the pickup-code SMS as carrying a code, and only it holds the code', () => {
    const code = pickupCodeMessage(
      parcel,
      '04172953',
      72,
      'https://parcels.example/p/AbCdEfGhIjKlMnOp',
    );
    expect(code.carriesCode).toBe(true);
    expect(code.text).toContain('04172953');
    expect(code.text).toContain('72 saat içinde');
    for (const sms of [
      collectionReceipt(parcel),
      disregardCodeMessage(parcel),
      storageReminder(parcel, 'expiring', 12),
    ]) {
      expect(sms.carriesCode).toBe(false);
      expect(sms.text).not.toContain('04172953');
    }
  });

  it('say which reminder it is and how long is left', () => {
    const en = { ...parcel, recipient_language: 'en' as const };
    expect(storageReminder(en, 'free_storage_ending', 24).text).toContain('free storage');
    expect(storageReminder(en, 'free_storage_ending', 24).text).toContain('in 24 hours');
    expect(storageReminder(en, 'expiring', 1).text).toContain('goes back to the sender in 1 hour');
    expect(collectionReceipt(en).text).toContain('was collected');
    expect(disregardCodeMessage(en).text).toContain('disregard the pickup code');
  });

  it('point a reminder to the recipient’s page for the extension, in every language, without the link', () => {
    const hints = {
      en: [
        'Open the link in the SMS with your code to keep it 48 h longer (once)',
        'or call +383 38 200 200',
      ],
      sq: [
        'Hapni lidhjen në SMS-në me kodin që ta mbajmë 48 orë më gjatë (një herë)',
        'ose telefononi +383 38 200 200',
      ],
      sr: [
        'Otvorite link iz SMS-a sa kodom da se čuva još 48 h (jednom)',
        'ili pozovite +383 38 200 200',
      ],
      tr: [
        "48 saat daha saklanması için kodunuzun olduğu SMS'teki bağlantıyı açın (bir kez)",
        'veya +383 38 200 200 numarasını arayın',
      ],
    } as const;
    for (const [language, [page, phone]] of Object.entries(hints)) {
      const to = { ...parcel, recipient_language: language as keyof typeof hints };
      const withPhone = storageReminder(to, 'expiring', 12, {
        hours: 48,
        phone: '+383 38 200 200',
      });
      expect(withPhone.text).toContain(page);
      expect(withPhone.text).toContain(phone);
      expect(withPhone.carriesCode).toBe(false);
      expect(withPhone.text).not.toMatch(/\/p\//);
      // A station without a support line: the page alone.
      const without = storageReminder(to, 'expiring', 12, { hours: 48, phone: null });
      expect(without.text).toContain(page);
      expect(without.text).not.toContain('+383');
      expect(without.text).toMatch(/\)\.$/);
    }
  });
});

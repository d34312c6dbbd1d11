// The locker picker's words, in the project's four languages (Serbian in Latin script).
// Browser code: built into /picker/v1/locker-picker.js with the element (no imports at run time).

export const PICKER_LANGUAGES = ['sq', 'sr', 'tr', 'en'] as const;
export type PickerLanguage = (typeof PICKER_LANGUAGES)[number];

/** The locale Intl formats weekdays and distances in. */
export const INTL_LOCALE: Record<PickerLanguage, string> = {
  sq: 'sq',
  sr: 'sr-Latn',
  tr: 'tr',
  en: 'en-GB',
};

type Plural = Intl.LDMLPluralRule;

export interface PickerTexts {
  /** Monday first, short (not Intl's: browsers' ICU data may lack Albanian). */
  weekdays: [string, string, string, string, string, string, string];
  title: string;
  filter: string;
  loading: string;
  found: (n: number, plural: Plural) => string;
  empty: string;
  emptyAccessible: string;
  error: string;
  errorStatus: (status: number) => string;
  errorNetwork: string;
  noEndpoint: string;
  noNear: string;
  retry: string;
  stepFree: string;
  steps: string;
  stepUnknown: string;
  hours: string;
  always: string;
  hoursUnknown: string;
  free: (n: number, plural: Plural) => string;
  full: string;
  accessibleFree: (n: number, plural: Plural) => string;
  away: (distance: string) => string;
  selected: (name: string) => string;
}

export const TEXTS: Record<PickerLanguage, PickerTexts> = {
  en: {
    weekdays: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'],
    title: 'Choose a parcel locker',
    filter: 'Only lockers with a free door within wheelchair reach',
    loading: 'Looking for lockers near you…',
    found: (n) =>
      n === 1 ? '1 locker found, nearest first.' : `${n} lockers found, nearest first.`,
    empty: 'No locker near this address has a free door for your parcel.',
    emptyAccessible:
      'No locker near this address has a free door within wheelchair reach for your parcel.',
    error: 'The lockers could not be loaded. Please try again.',
    errorStatus: (status) => `The shop's server answered ${status}.`,
    errorNetwork: "There is no connection to the shop's server.",
    noEndpoint: 'This locker list is not set up: it has no address to ask for lockers.',
    noNear: 'The locker list needs a delivery address first.',
    retry: 'Try again',
    stepFree: 'Step-free access',
    steps: 'Steps at the entrance',
    stepUnknown: 'Step-free access not known',
    hours: 'Opening hours (local time):',
    always: 'open 24 hours, every day',
    hoursUnknown: 'Opening hours not given',
    free: (n) => (n === 1 ? '1 door free for your parcel' : `${n} doors free for your parcel`),
    full: 'No free door for your parcel',
    accessibleFree: (n) => `${n} within wheelchair reach`,
    away: (distance) => `${distance} away`,
    selected: (name) => `Selected: ${name}.`,
  },
  sq: {
    weekdays: ['Hën', 'Mar', 'Mër', 'Enj', 'Pre', 'Sht', 'Die'],
    title: 'Zgjidhni një stacion pakosh',
    filter: 'Vetëm stacione me derë të lirë të arritshme nga karrigia me rrota',
    loading: 'Po kërkohen stacionet pranë jush…',
    found: (n) =>
      n === 1
        ? 'U gjet 1 stacion, më i afërti i pari.'
        : `U gjetën ${n} stacione, më i afërti i pari.`,
    empty: 'Asnjë stacion pranë kësaj adrese nuk ka derë të lirë për pakon tuaj.',
    emptyAccessible:
      'Asnjë stacion pranë kësaj adrese nuk ka derë të lirë për pakon tuaj të arritshme nga karrigia me rrota.',
    error: 'Stacionet nuk mund të ngarkoheshin. Ju lutemi provoni përsëri.',
    errorStatus: (status) => `Serveri i dyqanit u përgjigj ${status}.`,
    errorNetwork: 'Nuk ka lidhje me serverin e dyqanit.',
    noEndpoint: 'Kjo listë stacionesh nuk është konfiguruar: nuk ka adresë ku t’i kërkojë.',
    noNear: 'Për listën e stacioneve nevojitet më parë adresa e dërgesës.',
    retry: 'Provo përsëri',
    stepFree: 'Hyrje pa shkallë',
    steps: 'Ka shkallë në hyrje',
    stepUnknown: 'Nuk dihet nëse ka shkallë',
    hours: 'Orari (ora vendore):',
    always: 'hapur 24 orë, çdo ditë',
    hoursUnknown: 'Orari nuk është dhënë',
    free: (n) => (n === 1 ? '1 derë e lirë për pakon tuaj' : `${n} dyer të lira për pakon tuaj`),
    full: 'Asnjë derë e lirë për pakon tuaj',
    accessibleFree: (n) => `${n} të arritshme nga karrigia me rrota`,
    away: (distance) => `${distance} larg`,
    selected: (name) => `U zgjodh: ${name}.`,
  },
  sr: {
    weekdays: ['pon', 'uto', 'sre', 'čet', 'pet', 'sub', 'ned'],
    title: 'Izaberite paketomat',
    filter: 'Samo paketomati sa slobodnim vratima na dohvat iz invalidskih kolica',
    loading: 'Tražimo paketomate u vašoj blizini…',
    found: (n, plural) =>
      plural === 'one'
        ? `Pronađen je ${n} paketomat, najbliži prvi.`
        : plural === 'few'
          ? `Pronađena su ${n} paketomata, najbliži prvi.`
          : `Pronađeno je ${n} paketomata, najbliži prvi.`,
    empty: 'Nijedan paketomat blizu ove adrese nema slobodna vrata za vaš paket.',
    emptyAccessible:
      'Nijedan paketomat blizu ove adrese nema slobodna vrata za vaš paket na dohvat iz invalidskih kolica.',
    error: 'Paketomati nisu mogli da se učitaju. Pokušajte ponovo.',
    errorStatus: (status) => `Server prodavnice je odgovorio ${status}.`,
    errorNetwork: 'Nema veze sa serverom prodavnice.',
    noEndpoint: 'Ova lista paketomata nije podešena: nema adresu na kojoj traži paketomate.',
    noNear: 'Za listu paketomata prvo je potrebna adresa dostave.',
    retry: 'Pokušaj ponovo',
    stepFree: 'Pristup bez stepenica',
    steps: 'Na ulazu ima stepenica',
    stepUnknown: 'Nije poznato da li ima stepenica',
    hours: 'Radno vreme (lokalno vreme):',
    always: 'otvoreno 0–24, svaki dan',
    hoursUnknown: 'Radno vreme nije navedeno',
    free: (n, plural) =>
      plural === 'other' ? `${n} slobodnih vrata za vaš paket` : `${n} slobodna vrata za vaš paket`,
    full: 'Nema slobodnih vrata za vaš paket',
    accessibleFree: (n) => `${n} na dohvat iz invalidskih kolica`,
    away: (distance) => `udaljeno ${distance}`,
    selected: (name) => `Izabrano: ${name}.`,
  },
  tr: {
    weekdays: ['Pzt', 'Sal', 'Çar', 'Per', 'Cum', 'Cmt', 'Paz'],
    title: 'Bir teslimat dolabı seçin',
    filter: 'Yalnızca tekerlekli sandalyeden ulaşılabilir boş kapağı olan dolaplar',
    loading: 'Yakınınızdaki dolaplar aranıyor…',
    found: (n) => `${n} dolap bulundu, en yakını ilk sırada.`,
    empty: 'Bu adresin yakınındaki hiçbir dolapta kargonuz için boş kapak yok.',
    emptyAccessible:
      'Bu adresin yakınındaki hiçbir dolapta kargonuz için tekerlekli sandalyeden ulaşılabilir boş kapak yok.',
    error: 'Dolaplar yüklenemedi. Lütfen tekrar deneyin.',
    errorStatus: (status) => `Mağazanın sunucusu ${status} yanıtını verdi.`,
    errorNetwork: 'Mağazanın sunucusuna bağlanılamadı.',
    noEndpoint: 'Bu dolap listesi ayarlanmamış: dolapları soracağı bir adres yok.',
    noNear: 'Dolap listesi için önce bir teslimat adresi gerekiyor.',
    retry: 'Tekrar dene',
    stepFree: 'Basamaksız erişim',
    steps: 'Girişte basamak var',
    stepUnknown: 'Basamak olup olmadığı bilinmiyor',
    hours: 'Çalışma saatleri (yerel saat):',
    always: 'her gün 24 saat açık',
    hoursUnknown: 'Çalışma saatleri belirtilmemiş',
    free: (n) => `Kargonuz için ${n} boş kapak`,
    full: 'Kargonuz için boş kapak yok',
    accessibleFree: (n) => `${n} tanesi tekerlekli sandalyeden ulaşılabilir`,
    away: (distance) => `${distance} uzaklıkta`,
    selected: (name) => `Seçildi: ${name}.`,
  },
};

import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = [
  { code: 'sq', name: 'Shqip' },
  { code: 'sr', name: 'Srpski' },
  { code: 'tr', name: 'Türkçe' },
  { code: 'en', name: 'English' },
] as const;

const en = {
  title: 'Parcel locker',
  home: {
    pickup: 'Pick up a parcel',
    return: 'Return a parcel',
    courier: 'Courier',
    language: 'Language',
  },
  keypad: { delete: 'Delete last digit', ok: 'OK', back: 'Back' },
  pickup: {
    title: 'Enter your pickup code',
    hint: 'You received an 8-digit code by SMS.',
    take: 'Take your parcel and close the door.',
    thanks: 'Thank you! Enjoy your parcel.',
    leftInside: 'The parcel is still inside. You can come back for it with the same code.',
  },
  door: { open: 'Door {{door}} is open', leftOpen: 'Please close door {{door}}.' },
  courier: {
    title: 'Courier number',
    hello: 'Hello, {{name}}',
    scan: 'Scan or type the tracking number',
    put: 'Put the parcel in and close the door.',
    next: 'Next parcel',
    finish: 'Finish',
    deposited: 'Parcel deposited. The recipient gets the code by SMS.',
    shutEmpty:
      'The door was closed with nothing inside, so the parcel is not deposited. Scan it again to get a door.',
    collect: 'Take out returns and expired parcels',
    collectNone: 'Nothing to take out here.',
    collectTake: 'Take the parcel out and close the door.',
    collectDone: 'Everything is taken. Thank you!',
    unknown: 'Courier not recognised. Check the number and try again.',
  },
  return: {
    title: 'Tracking number of the parcel to return',
    put: 'Put the parcel in and close the door.',
    cancel: 'Cancel return',
    thanks: 'Thank you! Your return has been recorded.',
    empty: 'The door was closed empty, so no return was recorded.',
    cancelled: 'The return was cancelled.',
  },
  errors: {
    invalid_code: 'This code is not valid. Please check it and try again.',
    rate_limited: 'Too many attempts. Please wait {{seconds}} s.',
    unavailable: 'The service is not available right now. Please try again in a moment.',
    door_failed: 'Door {{door}} did not open. We have reported it. Support: {{phone}}',
    not_found: 'No parcel with this tracking number is expected here.',
    cabinet_full: 'No free door for a parcel of size {{size}}.',
    courier_not_verified: 'Courier not recognised.',
  },
  offline: 'Connection problems: some services may be unavailable.',
  support: 'Support: {{phone}}',
  grid: {
    title: 'Doors',
    available: 'free',
    occupied: 'occupied',
    out_of_service: 'out of service',
    door: 'Door {{door}}',
  },
  done: 'Done',
};

type Messages = typeof en;

const sq: Messages = {
  title: 'Stacioni i pakove',
  home: { pickup: 'Merr pakon', return: 'Kthe një pako', courier: 'Korrier', language: 'Gjuha' },
  keypad: { delete: 'Fshi shifrën e fundit', ok: 'OK', back: 'Kthehu' },
  pickup: {
    title: 'Shkruani kodin e marrjes',
    hint: 'Kodin me 8 shifra e keni marrë me SMS.',
    take: 'Merrni pakon dhe mbyllni derën.',
    thanks: 'Faleminderit! Gëzojeni pakon tuaj.',
    leftInside: 'Pakoja është ende brenda. Mund të ktheheni për të me të njëjtin kod.',
  },
  door: { open: 'Dera {{door}} është e hapur', leftOpen: 'Ju lutemi mbyllni derën {{door}}.' },
  courier: {
    title: 'Numri i korrierit',
    hello: 'Përshëndetje, {{name}}',
    scan: 'Skanoni ose shkruani numrin e gjurmimit',
    put: 'Vendoseni pakon brenda dhe mbyllni derën.',
    next: 'Pakoja tjetër',
    finish: 'Përfundo',
    deposited: 'Pakoja u depozitua. Marrësi e merr kodin me SMS.',
    shutEmpty:
      'Dera u mbyll pa asgjë brenda, prandaj pakoja nuk u depozitua. Skanojeni sërish për të marrë një derë.',
    collect: 'Merr kthimet dhe pakot e skaduara',
    collectNone: 'Këtu nuk ka asgjë për t’u marrë.',
    collectTake: 'Nxirreni pakon dhe mbyllni derën.',
    collectDone: 'Gjithçka u mor. Faleminderit!',
    unknown: 'Korrieri nuk u njoh. Kontrolloni numrin dhe provoni përsëri.',
  },
  return: {
    title: 'Numri i gjurmimit të pakos që ktheni',
    put: 'Vendoseni pakon brenda dhe mbyllni derën.',
    cancel: 'Anulo kthimin',
    thanks: 'Faleminderit! Kthimi juaj u regjistrua.',
    empty: 'Dera u mbyll bosh, prandaj kthimi nuk u regjistrua.',
    cancelled: 'Kthimi u anulua.',
  },
  errors: {
    invalid_code: 'Ky kod nuk është i vlefshëm. Ju lutemi kontrollojeni dhe provoni përsëri.',
    rate_limited: 'Shumë përpjekje. Ju lutemi prisni {{seconds}} s.',
    unavailable: 'Shërbimi nuk është i disponueshëm tani. Ju lutemi provoni përsëri pas pak.',
    door_failed: 'Dera {{door}} nuk u hap. E kemi raportuar. Mbështetja: {{phone}}',
    not_found: 'Këtu nuk pritet asnjë pako me këtë numër gjurmimi.',
    cabinet_full: 'Nuk ka derë të lirë për një pako të madhësisë {{size}}.',
    courier_not_verified: 'Korrieri nuk u njoh.',
  },
  offline: 'Probleme me lidhjen: disa shërbime mund të mos jenë të disponueshme.',
  support: 'Mbështetja: {{phone}}',
  grid: {
    title: 'Dyert',
    available: 'e lirë',
    occupied: 'e zënë',
    out_of_service: 'jashtë funksionit',
    door: 'Dera {{door}}',
  },
  done: 'Gati',
};

const sr: Messages = {
  title: 'Paketomat',
  home: { pickup: 'Preuzmi paket', return: 'Vrati paket', courier: 'Kurir', language: 'Jezik' },
  keypad: { delete: 'Obriši poslednju cifru', ok: 'U redu', back: 'Nazad' },
  pickup: {
    title: 'Unesite kod za preuzimanje',
    hint: 'Kod od 8 cifara ste dobili SMS porukom.',
    take: 'Uzmite paket i zatvorite vrata.',
    thanks: 'Hvala! Uživajte u svom paketu.',
    leftInside: 'Paket je i dalje unutra. Možete se vratiti po njega sa istim kodom.',
  },
  door: { open: 'Vrata {{door}} su otvorena', leftOpen: 'Molimo zatvorite vrata {{door}}.' },
  courier: {
    title: 'Broj kurira',
    hello: 'Zdravo, {{name}}',
    scan: 'Skenirajte ili unesite broj za praćenje',
    put: 'Stavite paket unutra i zatvorite vrata.',
    next: 'Sledeći paket',
    finish: 'Završi',
    deposited: 'Paket je ostavljen. Primalac dobija kod putem SMS-a.',
    shutEmpty:
      'Vrata su zatvorena prazna, pa paket nije ostavljen. Skenirajte ga ponovo da biste dobili vrata.',
    collect: 'Preuzmi povraćaje i istekle pakete',
    collectNone: 'Ovde nema ničega za preuzimanje.',
    collectTake: 'Izvadite paket i zatvorite vrata.',
    collectDone: 'Sve je preuzeto. Hvala!',
    unknown: 'Kurir nije prepoznat. Proverite broj i pokušajte ponovo.',
  },
  return: {
    title: 'Broj za praćenje paketa koji vraćate',
    put: 'Stavite paket unutra i zatvorite vrata.',
    cancel: 'Otkaži povraćaj',
    thanks: 'Hvala! Vaš povraćaj je zabeležen.',
    empty: 'Vrata su zatvorena prazna, pa povraćaj nije zabeležen.',
    cancelled: 'Povraćaj je otkazan.',
  },
  errors: {
    invalid_code: 'Ovaj kod nije važeći. Proverite ga i pokušajte ponovo.',
    rate_limited: 'Previše pokušaja. Sačekajte {{seconds}} s.',
    unavailable: 'Usluga trenutno nije dostupna. Pokušajte ponovo za nekoliko trenutaka.',
    door_failed: 'Vrata {{door}} se nisu otvorila. Prijavili smo kvar. Podrška: {{phone}}',
    not_found: 'Ovde se ne očekuje paket sa ovim brojem za praćenje.',
    cabinet_full: 'Nema slobodnih vrata za paket veličine {{size}}.',
    courier_not_verified: 'Kurir nije prepoznat.',
  },
  offline: 'Problemi sa vezom: neke usluge možda nisu dostupne.',
  support: 'Podrška: {{phone}}',
  grid: {
    title: 'Vrata',
    available: 'slobodna',
    occupied: 'zauzeta',
    out_of_service: 'van upotrebe',
    door: 'Vrata {{door}}',
  },
  done: 'Gotovo',
};

const tr: Messages = {
  title: 'Kargo dolabı',
  home: { pickup: 'Kargo teslim al', return: 'Kargo iade et', courier: 'Kurye', language: 'Dil' },
  keypad: { delete: 'Son rakamı sil', ok: 'Tamam', back: 'Geri' },
  pickup: {
    title: 'Teslim alma kodunuzu girin',
    hint: '8 haneli kodu SMS ile aldınız.',
    take: 'Kargonuzu alın ve kapıyı kapatın.',
    thanks: 'Teşekkürler! Kargonuzun keyfini çıkarın.',
    leftInside: 'Kargo hâlâ içeride. Aynı kodla tekrar gelip alabilirsiniz.',
  },
  door: {
    open: '{{door}} numaralı kapı açık',
    leftOpen: 'Lütfen {{door}} numaralı kapıyı kapatın.',
  },
  courier: {
    title: 'Kurye numarası',
    hello: 'Merhaba, {{name}}',
    scan: 'Takip numarasını okutun veya yazın',
    put: 'Kargoyu içeri koyun ve kapıyı kapatın.',
    next: 'Sonraki kargo',
    finish: 'Bitir',
    deposited: 'Kargo bırakıldı. Alıcıya kod SMS ile gönderilecek.',
    shutEmpty:
      'Kapı içi boş kapatıldı, bu yüzden kargo bırakılmadı. Bir kapı almak için kargoyu yeniden okutun.',
    collect: 'İadeleri ve süresi dolan kargoları al',
    collectNone: 'Burada alınacak bir şey yok.',
    collectTake: 'Kargoyu çıkarın ve kapıyı kapatın.',
    collectDone: 'Hepsi alındı. Teşekkürler!',
    unknown: 'Kurye tanınmadı. Numarayı kontrol edip tekrar deneyin.',
  },
  return: {
    title: 'İade edeceğiniz kargonun takip numarası',
    put: 'Kargoyu içeri koyun ve kapıyı kapatın.',
    cancel: 'İadeyi iptal et',
    thanks: 'Teşekkürler! İadeniz kaydedildi.',
    empty: 'Kapı boş olarak kapatıldı, bu yüzden iade kaydedilmedi.',
    cancelled: 'İade iptal edildi.',
  },
  errors: {
    invalid_code: 'Bu kod geçerli değil. Lütfen kontrol edip tekrar deneyin.',
    rate_limited: 'Çok fazla deneme yapıldı. Lütfen {{seconds}} sn bekleyin.',
    unavailable: 'Hizmet şu anda kullanılamıyor. Lütfen biraz sonra tekrar deneyin.',
    door_failed: '{{door}} numaralı kapı açılmadı. Arızayı bildirdik. Destek: {{phone}}',
    not_found: 'Bu takip numarasına sahip bir kargo burada beklenmiyor.',
    cabinet_full: '{{size}} boyutunda bir kargo için boş kapı yok.',
    courier_not_verified: 'Kurye tanınmadı.',
  },
  offline: 'Bağlantı sorunu: bazı hizmetler kullanılamayabilir.',
  support: 'Destek: {{phone}}',
  grid: {
    title: 'Kapılar',
    available: 'boş',
    occupied: 'dolu',
    out_of_service: 'hizmet dışı',
    door: 'Kapı {{door}}',
  },
  done: 'Tamam',
};

export function setupI18n(language = 'sq') {
  void i18next.use(initReactI18next).init({
    resources: {
      en: { translation: en },
      sq: { translation: sq },
      sr: { translation: sr },
      tr: { translation: tr },
    },
    lng: language,
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
  });
  return i18next;
}

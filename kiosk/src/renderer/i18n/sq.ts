import type { Messages } from './en';

/** Shqip: the station's default language. */
export const sq: Messages = {
  title: 'Stacioni i pakove',
  language: 'Gjuha',
  options: {
    label: 'Opsione',
    help: 'Ndihmë',
    speech: 'Lexo me zë',
    low: 'Pamje e ulët',
    contrast: 'Kontrast i lartë',
    large: 'Shkrim i madh',
  },
  home: {
    instruction: 'Çfarë dëshironi të bëni?',
    pickup: 'Merr një pako',
    return: 'Kthe një pako',
    courier: 'Korrier',
    steps: {
      one: 'Zgjidhni çfarë doni të bëni.',
      two: 'Shkruani kodin, ose skanoni etiketën.',
      three: 'Hapet një derë: numri i saj shfaqet i madh.',
    },
  },
  keypad: { delete: 'Fshi shifrën e fundit', ok: 'OK', back: 'Kthehu', entered: 'E shkruar' },
  pickup: {
    title: 'Merr një pako',
    instruction: 'Shkruani kodin me 8 shifra nga SMS-ja.',
    take: 'Merrni pakon dhe mbyllni derën.',
    thanks: 'Faleminderit! Gëzojeni pakon tuaj.',
    leftInside: 'Pakoja është ende brenda. Mund të ktheheni për të me të njëjtin kod.',
  },
  door: {
    opening: 'Po hapet dera {{door}}.',
    open: 'Dera {{door}} është e hapur',
    closed: 'Dera {{door}} është e mbyllur',
    leftOpen: 'Ju lutemi mbyllni derën {{door}}.',
    didNotOpen: 'Dera {{door}} nuk u hap. U raportua.',
    map: 'Ku ndodhet dera {{door}}',
    number: 'Dera',
  },
  courier: {
    title: 'Hyrja e korrierit',
    instruction: 'Shkruani ose skanoni numrin tuaj të korrierit.',
    hello: 'Përshëndetje, {{name}}',
    free: 'Dyer të lira',
    freeSize: '{{size}}: {{count}}',
    scan: 'Skanoni ose shkruani numrin e gjurmimit.',
    put: 'Vendoseni pakon brenda dhe mbyllni derën.',
    next: 'Pakoja tjetër',
    finish: 'Përfundo',
    deposited: 'Pakoja u depozitua. Marrësi e merr kodin me SMS.',
    shutEmpty:
      'Dera u mbyll pa asgjë brenda, prandaj pakoja nuk u depozitua. Skanojeni sërish për të marrë një derë.',
    collect: 'Merr kthimet dhe pakot e skaduara',
    toTakeOut: 'Pako për t’u marrë: {{count}}',
    collectNone: 'Këtu nuk ka asgjë për t’u marrë.',
    collectTake: 'Nxirreni pakon dhe mbyllni derën.',
    progress: 'Pakoja {{index}} nga {{count}}',
    stop: 'Ndalo pas kësaj dere',
    tracking: 'Numri i gjurmimit {{number}}',
    collectDone: 'Gjithçka u mor. Faleminderit!',
    collectStopping: 'Mbylleni këtë derë. Asnjë derë tjetër nuk do të hapet.',
    collectStopped: 'U ndal. Pako të mbetura për më vonë: {{count}}',
    collectRest: 'Përfundoi. Pako ende në stacion: {{count}}',
    collectDown: 'Dyert nuk mund të hapen tani. Pako ende në stacion: {{count}}',
    summaryTaken: 'Të marra',
    summaryLeft: 'Mbetur për më vonë',
    collectTaken: 'Pakoja u mor.',
    collectLeft: 'Pakoja është ende brenda, prandaj mbetet në stacion.',
    unknown: 'Korrieri nuk u njoh. Kontrolloni numrin dhe provoni përsëri.',
  },
  return: {
    title: 'Kthe një pako',
    instruction: 'Shkruani ose skanoni numrin e gjurmimit të pakos.',
    put: 'Vendoseni pakon brenda dhe mbyllni derën.',
    cancel: 'Anulo kthimin',
    thanks: 'Faleminderit! Kthimi juaj u regjistrua.',
    empty: 'Dera u mbyll bosh, prandaj kthimi nuk u regjistrua.',
    cancelled: 'Kthimi u anulua.',
    takeBack: 'Nxirreni pakon tuaj dhe mbyllni derën.',
    choice: 'Pakoja është ende brenda. Ta lini si kthim, apo ta hapni derën përsëri?',
    keep: 'Lëre si kthim',
    reopen: 'Hape derën përsëri',
  },
  errors: {
    invalid_code: 'Ky kod nuk është i vlefshëm. Ju lutemi kontrollojeni dhe provoni përsëri.',
    rate_limited: 'Shumë përpjekje. Ju lutemi prisni {{seconds}} s.',
    unavailable: 'Shërbimi nuk është i disponueshëm tani. Ju lutemi provoni përsëri pas pak.',
    door_failed: 'Dera {{door}} nuk u hap. E kemi raportuar. Mbështetja: {{phone}}',
    not_found: 'Këtu nuk pritet asnjë pako me këtë numër gjurmimi. Kontrolloni numrin në etiketë.',
    cabinet_full:
      'Nuk ka derë të lirë për një pako të madhësisë {{size}}. Përdorni një stacion tjetër.',
    cabinet_full_return:
      'Tani nuk ka derë të lirë për kthimin tuaj. Provoni më vonë ose përdorni një stacion tjetër.',
    courier_not_verified: 'Korrieri nuk u njoh.',
  },
  final: {
    title: 'U krye',
    countdown: 'Kthim në fillim pas {{seconds}} s',
  },
  idle: {
    title: 'Jeni ende këtu?',
    text: 'Ekrani kthehet në fillim pas {{seconds}} s.',
    more: 'Më duhet më shumë kohë',
  },
  help: {
    title: 'Ndihmë',
    instruction: 'Zgjidhni çfarë ndodhi, ose telefononi mbështetjen.',
    phone: 'Mbështetja: {{phone}}',
    qr: 'Skanojeni këtë kod me telefon për të thirrur mbështetjen.',
    doorNotOpen: 'Dera nuk u hap',
    doorNotOpenAdvice:
      'Shtyjeni derën fort dhe tërhiqeni sërish. Nëse mbetet e mbyllur, telefononi mbështetjen: pakoja juaj është e sigurt.',
    doorNotOpenReported: 'Dera {{door}} u raportua. Telefononi mbështetjen dhe ata do ta hapin.',
    report: 'Raporto derën {{door}}',
    reportedSent: 'Faleminderit. Dera {{door}} u raportua dhe u hoq nga përdorimi.',
    reportedQueued:
      'Dera {{door}} u raportua. Stacioni është pa lidhje, prandaj raporti dërgohet sapo të kthehet lidhja.',
    doorNotOpenNext:
      'Nëse pakoja juaj është pas saj, telefononi mbështetjen: ata do ta hapin për ju.',
    doorWontCloseNext:
      'Mund të largoheni tani. Pakoja juaj është regjistruar; telefononi mbështetjen nëse ju duhet.',
    notInsideNext: 'Mbyllni derën, pastaj telefononi mbështetjen me kodin ose numrin e gjurmimit.',
    doorWontClose: 'Dera nuk mbyllet',
    doorWontCloseAdvice:
      'Sigurohuni që asgjë nuk del jashtë, pastaj shtyjeni derën derisa të kërcasë. Nëse ende nuk mbyllet, telefononi mbështetjen.',
    notInside: 'Pakoja ime nuk është brenda',
    notInsideAdvice:
      'Ju lutemi mbyllni derën. Pastaj telefononi mbështetjen me kodin ose numrin e gjurmimit: do ta gjejmë pakon tuaj.',
    back: 'Kthehu',
  },
  outOfService: {
    title: 'Ky stacion nuk funksionon tani',
    safe: 'Pakot tuaja janë të sigurta brenda. Ju lutemi ejani më vonë ose telefononi mbështetjen.',
    service_unreachable: 'Stacioni nuk lidhet dot me shërbimin e pakove tani.',
    terminal_refused: 'Ky stacion është fikur nga operatori.',
    controller_unreachable: 'Dyert nuk mund të hapen tani.',
  },
  offline: 'Probleme me lidhjen: disa shërbime mund të mos jenë të disponueshme.',
  // The locker working on its own through an outage (issue 25).
  onItsOwn: {
    title: 'Po punon më vete',
    home: 'Stacioni nuk lidhet dot me shërbimin e pakove tani, prandaj po punon më vete. Marrja e pakos me kodin tuaj funksionon si zakonisht.',
    homeCourier:
      'Korrierët mund të lënë pako si zakonisht; marrësit e marrin kodin sapo shërbimi të kthehet.',
    notNow: 'Kthimet janë të mundshme sërish sapo shërbimi të kthehet.',
    pickup: 'Stacioni po punon më vete: kodi juaj funksionon si zakonisht.',
    courier:
      'Stacioni po punon më vete: pakot që lini regjistrohen dhe i dërgohen shërbimit sapo të kthehet.',
    // A courier signed in on the kiosk's own: no name is kept there to greet them by.
    courierHello: 'Përshëndetje',
  },
  // Pickup without typing: the camera reads the QR code of the recipient's page.
  scan: {
    hint: 'Ose mbajeni kodin QR nga lidhja në SMS para kamerës.',
  },
  support: 'Mbështetja: {{phone}}',
  service: {
    title: 'Menyja e shërbimit',
    instruction: 'Shkruani PIN-in e teknikut.',
    wrong: 'PIN i gabuar.',
    notSet: 'Në konfigurimin e stacionit nuk ka PIN tekniku.',
    leave: 'Dil nga menyja e shërbimit',
    enrol: 'Regjistrohu me kod',
    enrolInstruction: 'Shkruani kodin e regjistrimit që ju dha operatori (10 shifra).',
    enrolled: 'U regjistrua: ky kiosk është stacioni {{code}} ({{name}}).',
    enrolFailed: 'Kioski nuk u përgjigj; provoni përsëri.',
  },
  maintenance: {
    title: 'Mirëmbajtja',
    station: 'Stacioni {{code}}',
    online: 'I lidhur me shërbimin',
    offline: 'Po punon jashtë linje',
    queue: 'Konfirmime në pritje për dërgim: {{count}}',
    stuck: 'Konfirmime të lëna mënjanë: {{count}}',
    sensors: 'Sensorët e dyerve',
    door: 'Dera',
    service: 'Shërbimi',
    lock: 'Sensori',
    content: 'Brenda',
    check: 'Kontrollo',
    closed: 'e mbyllur',
    open: 'e hapur',
    item: 'ka send',
    empty: 'bosh',
    mismatchItem: 'Ka diçka brenda në një derë që shërbimi e numëron të lirë.',
    mismatchEmpty: 'Duket bosh, por shërbimi pret një pako këtu.',
    unreachable: 'Kontrolluesi i dyerve nuk përgjigjet. Kontrolloni kabllon dhe ushqimin me rrymë.',
  },
  grid: {
    title: 'Dyert',
    available: 'e lirë',
    occupied: 'e zënë',
    out_of_service: 'jashtë funksionit',
    inUse: 'e hapur tani',
    door: 'Dera {{door}}',
  },
  remote: {
    operator: 'Dera {{door}} u hap nga një operator.',
    technician: 'Dera {{door}} u hap nga një teknik.',
  },
  // "Gati" (ready) read as "ready to start" as often as "finished": this says
  // "I am done", as the person means it when they tap it.
  done: 'Përfundova',
  // Door supervision (issue 31).
  supervision: {
    foundOpen: 'Dera {{door}} ishte tashmë e hapur',
    staffTold: 'Stafi është njoftuar.',
    unsettledTitle: 'Stafi do të kontrollojë derën {{door}}',
    unsettledDone: 'Faleminderit. Marrja e pakos do të konfirmohet nga stafi ynë.',
    unsettledOpen: 'Ju lutemi mbyllni derën {{door}}. Stafi është njoftuar.',
    doorOutOfService:
      'Dera {{door}} nuk funksionon dhe nuk u hap. Stafi është njoftuar. Mbështetja: {{phone}}',
    untrusted:
      'Sensorët e dyerve nuk lexojnë saktë, prandaj asnjë derë nuk hapet. Është thirrur një teknik.',
  },
};

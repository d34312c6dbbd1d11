/**
 * The kiosk's English texts, and the shape every other language must fill: a key missing
 * in sq.ts, sr.ts or tr.ts is a compile error. Written for a stranger at a locker in a
 * hurry: one short sentence per instruction, the next step in every refusal.
 */
export const en = {
  title: 'Parcel locker',
  language: 'Language',
  options: {
    label: 'Options',
    help: 'Help',
    speech: 'Read aloud',
    low: 'Low layout',
    contrast: 'High contrast',
    large: 'Large text',
  },
  home: {
    instruction: 'What would you like to do?',
    pickup: 'Pick up a parcel',
    return: 'Return a parcel',
    courier: 'Courier',
    steps: {
      one: 'Choose what you want to do.',
      two: 'Type your code, or scan the label.',
      three: 'A door opens: its number is shown large.',
    },
  },
  keypad: { delete: 'Delete last digit', ok: 'OK', back: 'Back', entered: 'Entered' },
  pickup: {
    title: 'Pick up a parcel',
    instruction: 'Enter the 8-digit code from your SMS.',
    take: 'Take your parcel and close the door.',
    thanks: 'Thank you! Enjoy your parcel.',
    leftInside: 'The parcel is still inside. You can come back for it with the same code.',
  },
  door: {
    opening: 'Door {{door}} is opening.',
    open: 'Door {{door}} is open',
    closed: 'Door {{door}} is closed',
    leftOpen: 'Please close door {{door}}.',
    didNotOpen: 'Door {{door}} did not open. It has been reported.',
    map: 'Where door {{door}} is',
    number: 'Door',
  },
  courier: {
    title: 'Courier sign-in',
    instruction: 'Enter or scan your courier number.',
    hello: 'Hello, {{name}}',
    free: 'Free doors',
    freeSize: '{{size}}: {{count}}',
    scan: 'Scan or type the tracking number.',
    put: 'Put the parcel in and close the door.',
    next: 'Next parcel',
    finish: 'Finish',
    deposited: 'Parcel deposited. The recipient gets the code by SMS.',
    shutEmpty:
      'The door was closed with nothing inside, so the parcel is not deposited. Scan it again to get a door.',
    collect: 'Take out returns and expired parcels',
    toTakeOut: 'Parcels to take out: {{count}}',
    collectNone: 'Nothing to take out here.',
    collectTake: 'Take the parcel out and close the door.',
    progress: 'Parcel {{index}} of {{count}}',
    stop: 'Stop after this door',
    tracking: 'Tracking number {{number}}',
    collectDone: 'Everything is taken. Thank you!',
    collectStopping: 'Close this door. No other door will open.',
    collectStopped: 'Stopped. Parcels left for later: {{count}}',
    collectRest: 'Done. Parcels still in the locker: {{count}}',
    collectDown: 'The doors cannot be opened right now. Parcels still in the locker: {{count}}',
    summaryTaken: 'Taken',
    summaryLeft: 'Left for later',
    collectTaken: 'Parcel taken.',
    collectLeft: 'The parcel is still inside, so it stays in the locker.',
    unknown: 'Courier not recognised. Check the number and try again.',
  },
  return: {
    title: 'Return a parcel',
    instruction: 'Enter or scan the tracking number of the parcel.',
    put: 'Put the parcel in and close the door.',
    cancel: 'Cancel return',
    thanks: 'Thank you! Your return has been recorded.',
    empty: 'The door was closed empty, so no return was recorded.',
    cancelled: 'The return was cancelled.',
    takeBack: 'Take your parcel back out and close the door.',
    choice: 'The parcel is still inside. Keep it as a return, or open the door again?',
    keep: 'Keep it as a return',
    reopen: 'Open the door again',
  },
  errors: {
    invalid_code: 'This code is not valid. Please check it and try again.',
    rate_limited: 'Too many attempts. Please wait {{seconds}} s.',
    unavailable: 'The service is not available right now. Please try again in a moment.',
    door_failed: 'Door {{door}} did not open. We have reported it. Support: {{phone}}',
    not_found:
      'No parcel with this tracking number is expected here. Check the number on your label.',
    cabinet_full: 'No free door for a parcel of size {{size}}. Please use another locker.',
    cabinet_full_return:
      'There is no free door for your return right now. Please try again later or use another locker.',
    courier_not_verified: 'Courier not recognised.',
  },
  final: {
    /** The heading once it went well; `done` is the button that ends the visit. */
    title: 'All done',
    countdown: 'Back to the start in {{seconds}} s',
  },
  idle: {
    title: 'Are you still there?',
    text: 'The screen goes back to the start in {{seconds}} s.',
    more: 'I need more time',
  },
  help: {
    title: 'Help',
    instruction: 'Choose what happened, or call support.',
    phone: 'Support: {{phone}}',
    qr: 'Scan this code with your phone to call support.',
    doorNotOpen: 'The door did not open',
    doorNotOpenAdvice:
      'Push the door firmly and pull again. If it stays shut, call support: your parcel is safe.',
    doorNotOpenReported: 'Door {{door}} has been reported. Call support and they will open it.',
    report: 'Report door {{door}}',
    reportedSent: 'Thank you. Door {{door}} has been reported and taken out of use.',
    reportedQueued:
      'Door {{door}} is reported. The locker is offline, so it will be sent as soon as it is back.',
    doorNotOpenNext: 'If your parcel is behind it, call support: they will open it for you.',
    doorWontCloseNext:
      'You can leave now. Your parcel is recorded as it is; call support if you need it.',
    notInsideNext: 'Close the door, then call support with your code or tracking number.',
    doorWontClose: 'The door will not close',
    doorWontCloseAdvice:
      'Check that nothing sticks out, then push the door until it clicks. If it still will not close, call support.',
    notInside: 'My parcel is not inside',
    notInsideAdvice:
      'Please close the door. Then call support with your code or tracking number: we will find your parcel.',
    back: 'Back',
  },
  outOfService: {
    title: 'This locker is out of service',
    safe: 'Your parcels are safe inside. Please come back later or call support.',
    service_unreachable: 'The locker cannot reach the parcel service right now.',
    terminal_refused: 'This locker has been switched off by the operator.',
    controller_unreachable: 'The doors cannot be opened right now.',
  },
  offline: 'Connection problems: some services may be unavailable.',
  // The locker working on its own through an outage (issue 25).
  onItsOwn: {
    title: 'Working on its own',
    home: 'The locker cannot reach the parcel service right now, so it is working on its own. Picking up a parcel with your code works as usual.',
    homeCourier:
      'Couriers can deposit parcels as usual; recipients get their code once the service is back.',
    notNow: 'Returns are possible again once the service is back.',
    pickup: 'The locker is working on its own: your code works as usual.',
    courier:
      'The locker is working on its own: your deposits are recorded and sent to the service when it is back.',
    // A courier signed in on the kiosk's own: no name is kept there to greet them by.
    courierHello: 'Hello',
  },
  // Pickup without typing: the camera reads the QR code of the recipient's page.
  scan: {
    hint: 'Or hold the QR code from your SMS link up to the camera.',
  },
  support: 'Support: {{phone}}',
  service: {
    title: 'Service menu',
    instruction: 'Enter the technician PIN.',
    wrong: 'Wrong PIN.',
    notSet: 'No technician PIN is set in the kiosk configuration.',
    leave: 'Leave the service menu',
    enrol: 'Enrol with a code',
    enrolInstruction: 'Type the enrolment code the operator gave you (10 digits).',
    enrolled: 'Enrolled: this kiosk is station {{code}} ({{name}}).',
    enrolCamera: 'Or scan its QR code, or hold it up to the camera.',
    enrolFailed: 'The kiosk did not answer; try again.',
  },
  maintenance: {
    title: 'Maintenance',
    station: 'Station {{code}}',
    online: 'Connected to the service',
    offline: 'Working offline',
    queue: 'Confirms waiting to be sent: {{count}}',
    stuck: 'Confirms set aside: {{count}}',
    sensors: 'Door sensors',
    door: 'Door',
    service: 'Service',
    lock: 'Sensor',
    content: 'Inside',
    check: 'Check',
    closed: 'closed',
    open: 'open',
    item: 'item',
    empty: 'empty',
    mismatchItem: 'Something is inside a door the service counts as free.',
    mismatchEmpty: 'Reads empty, but the service expects a parcel here.',
    unreachable: 'The door controller does not answer. Check its cable and power.',
  },
  grid: {
    title: 'Doors',
    available: 'free',
    occupied: 'occupied',
    out_of_service: 'out of service',
    inUse: 'open now',
    door: 'Door {{door}}',
  },
  remote: {
    operator: 'Door {{door}} was opened by an operator.',
    technician: 'Door {{door}} was opened by a technician.',
  },
  done: 'Done',
  // Door supervision (issue 31): a door found open, a take-out the staff settle, a board
  // whose polarity is suspect.
  supervision: {
    foundOpen: 'Door {{door}} was already open',
    staffTold: 'The staff have been told.',
    unsettledTitle: 'The staff will check door {{door}}',
    unsettledDone: 'Thank you. Our staff will confirm your pickup.',
    unsettledOpen: 'Please close door {{door}}. The staff have been told.',
    doorOutOfService:
      'Door {{door}} is out of service and was not opened. The staff have been told. Support: {{phone}}',
    untrusted: 'The door sensors read wrong, so no door is opened. A technician has been called.',
  },
  sharedDoor: {
    heading: 'Same door?',
    question:
      'This parcel is for the same person as the one in door {{door}}, and it fits. Put it in the same door?',
    yes: 'Yes, door {{door}}',
    no: 'No, another door',
    put: 'Put this parcel in with the other one and close the door.',
    deposited: 'Parcel deposited with the other one. The recipient uses the same code.',
    take: 'Take your {{count}} parcels and close the door.',
    thanks: 'Thank you! Enjoy your parcels.',
  },
  overflow: {
    title: 'This locker is full',
    noDoor: 'No free door for a parcel of size {{size}}.',
    looking: 'Looking for the nearest locker with room…',
    choose: 'Take the parcel to the nearest locker with room. Tap one:',
    away: '{{distance}} away',
    none: 'No locker nearby has room for this parcel. Keep it and take it back to the depot.',
    unavailable:
      'The parcel cannot be sent to another locker right now. Keep it and try again later.',
    filled: 'That locker has just filled up. Choose another one.',
    keep: 'Keep it, scan the next parcel',
    goTo: 'Take the parcel to {{name}}',
    address: 'Address: {{address}}',
    held: 'A door is kept for it there.',
    notified: 'The recipient has been told by SMS where to collect it.',
  },
} as const;

type Strings<T> = { -readonly [K in keyof T]: T[K] extends string ? string : Strings<T[K]> };
/** What every language must say: the same keys as English, any wording. */
export type Messages = Strings<typeof en>;

import { useState, type ReactNode } from 'react';
import type { DoorOpened, DoorUnknown, KioskState, Refusal } from '../../bridge/api';
import { BackButton } from './BackButton';
import { CameraScanner } from './CameraScanner';
import { staleOf, type Stale } from './doorStep';
import { Keypad } from './Keypad';
import { Screen } from './Screen';
import { isRefusal, useRefusal } from './useRefusal';

export type OpenedDoor = { door: number; stale: Stale; parcels?: number };

/**
 * A code typed (or scanned) to open a door: the keypad, the refusal with its next step,
 * and once a door opened, whatever the caller shows for it. A refusal keeps what was
 * typed: one wrong digit is one correction.
 */
export function CodeEntry(props: {
  name: string;
  task: 'pickup' | 'return';
  heading: string;
  instruction: string;
  state: KioskState;
  back: () => void;
  keypad: { minLength: number; maxLength: number; groups: number[]; acceptLetters?: boolean };
  /** Asks the core for a door with what was typed. */
  request: (value: string) => Promise<DoorOpened | DoorUnknown | Refusal>;
  /** The door screen, once a door opened. */
  opened: (door: OpenedDoor) => ReactNode;
  /**
   * The camera reads QR codes too: what it reads that `accept` takes is sent as if typed
   * (the same request, the same rate limit); `hint` says so under its picture.
   */
  camera?: { accept: (text: string) => boolean; hint: string };
}) {
  const { state, back } = props;
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [opened, setOpened] = useState<OpenedDoor | null>(null);
  const refusal = useRefusal(props.task, state);
  const submit = async (typed = value) => {
    setBusy(true);
    refusal.clear();
    // The session on screen now is not this person's (DoorScreen tells them apart).
    const stale = staleOf(state.session);
    const answer = await props.request(typed).catch((): Refusal => ({ kind: 'unavailable' }));
    setBusy(false);
    if (isRefusal(answer)) refusal.refuse(answer);
    else
      setOpened({
        door: answer.door,
        stale,
        ...(answer.parcels ? { parcels: answer.parcels } : {}),
      });
  };
  if (opened) return props.opened(opened);
  return (
    <Screen
      name={props.name}
      heading={props.heading}
      instruction={props.instruction}
      message={refusal.message}
      info={
        props.camera && (
          <CameraScanner
            hint={props.camera.hint}
            paused={busy || refusal.locked}
            onCode={(text) => {
              if (!props.camera?.accept(text)) return;
              // Shown as if typed, then sent: a refusal keeps it for a correction.
              setValue(text);
              void submit(text);
            }}
          />
        )
      }
      actions={<BackButton onClick={back} />}
      main={
        <Keypad
          value={value}
          onChange={setValue}
          onSubmit={() => void submit()}
          onCancel={back}
          {...props.keypad}
          label={props.instruction}
          busy={busy}
          locked={refusal.locked}
        />
      }
    />
  );
}

import { useEffect, type ReactNode } from 'react';
import { useOptions } from '../options';
import { OptionsBar } from './OptionsBar';

export type Tone = 'error' | 'warning' | 'info' | 'success';

/** What went wrong or right, in one sentence; `speech` when the shown text ticks (countdowns). */
export interface ScreenMessage {
  text: string;
  tone: Tone;
  speech?: string;
}

interface Props {
  /** For tests and styles: which screen this is. */
  name: string;
  heading: string;
  /** The one sentence that says what to do now; spoken when it changes. */
  instruction: string;
  message?: ScreenMessage | null;
  /** More to read (never a control): the code typed so far, the door number. */
  info?: ReactNode;
  /** The screen's controls: keypad, big buttons; or the cabinet map. */
  main?: ReactNode;
  /** On the screen's centre line, large: the open door's number. */
  centre?: ReactNode;
  /** The way back, and the primary action where it is not the keypad's OK. */
  actions?: ReactNode;
  /** `door`: the open door's number spans the whole width, on the centre line. */
  variant?: 'door' | 'plain';
  help?: boolean;
  /** Said after the instruction: what a list of choices on the screen offers. */
  speech?: string;
}

/**
 * Every screen's frame. Reading matter sits at the top; every control lies in the lower
 * two thirds (the lower half in the low layout): portrait stacks them, landscape puts the
 * reading on the left and the keypad or buttons on the right.
 */
export function Screen(props: Props) {
  const { say, options } = useOptions();
  const spoken = `${
    props.message
      ? `${props.message.speech ?? props.message.text} ${props.instruction}`
      : `${props.heading}. ${props.instruction}`
  }${props.speech ? ` ${props.speech}` : ''}`;
  useEffect(() => say(spoken), [spoken, say, options.speech]);
  const info = (
    <div className="screen-info">
      <h1>{props.heading}</h1>
      <p className="instruction">{props.instruction}</p>
      {props.message && (
        <p
          className={`message message-${props.message.tone}`}
          role={props.message.tone === 'error' ? 'alert' : 'status'}
        >
          {props.message.text}
        </p>
      )}
      {props.info}
    </div>
  );
  const actions = props.actions && <div className="screen-actions">{props.actions}</div>;
  const main = props.main && <div className="screen-main">{props.main}</div>;
  const bar = <OptionsBar help={props.help ?? true} />;
  const variant = props.variant ?? 'plain';
  if (variant === 'door') {
    // Portrait halves the screen around the door's number: the map above it, what to do
    // and the controls below, in one box (landscape places each part itself).
    return (
      <div className="screen screen-door" data-screen={props.name}>
        <div className="screen-lower">
          {info}
          {actions}
          {bar}
        </div>
        {props.centre && <div className="screen-centre">{props.centre}</div>}
        {main}
      </div>
    );
  }
  return (
    <div className={`screen screen-${variant}`} data-screen={props.name}>
      {info}
      {props.centre && <div className="screen-centre">{props.centre}</div>}
      {actions}
      {main}
      {bar}
    </div>
  );
}

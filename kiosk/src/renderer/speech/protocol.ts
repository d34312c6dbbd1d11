/** What the screen asks the speech worker, and what it answers. */
export interface SpeechRequest {
  kind: 'speak';
  id: number;
  text: string;
  /** An eSpeak NG voice name. */
  voice: string;
  /** Words per minute. */
  rate: number;
}

/**
 * Warm the engine before anyone touches the screen: each voice is loaded and speaks a
 * sample once, its audio thrown away, so the first real utterance in any of them finds
 * the voice data read and the engine's code already compiled to machine code.
 */
export interface WarmRequest {
  kind: 'warm';
  /** The samples, in order; the station's own language last, so its voice stays loaded. */
  samples: { voice: string; text: string }[];
  rate: number;
}

export type SpeechReply =
  | { kind: 'ready'; voices: string[] }
  | { kind: 'chunk'; id: number; samples: Int16Array; sampleRate: number }
  | { kind: 'end'; id: number };

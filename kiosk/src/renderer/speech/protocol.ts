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
 * the voice data read and the engine's code run before. Sent once per worker.
 */
export interface WarmRequest {
  kind: 'warm';
  /** The samples, in order; the station's own language last, so its voice stays set. */
  samples: { voice: string; text: string }[];
  rate: number;
}

export type SpeechReply =
  /** One voice loaded and run once, while warming: each voice is loaded once per worker. */
  | { kind: 'voice'; voice: string }
  /** Every voice warm: speech requests are answered from now on without loading anything. */
  | { kind: 'ready'; voices: string[] }
  | { kind: 'chunk'; id: number; samples: Int16Array; sampleRate: number }
  | { kind: 'end'; id: number };

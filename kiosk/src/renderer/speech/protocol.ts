/** What the screen asks the speech worker, and what it answers. */
export interface SpeechRequest {
  id: number;
  text: string;
  /** An eSpeak NG voice name. */
  voice: string;
  /** Words per minute. */
  rate: number;
}

export type SpeechReply =
  | { kind: 'ready' }
  | { kind: 'chunk'; id: number; samples: Int16Array; sampleRate: number }
  | { kind: 'end'; id: number };

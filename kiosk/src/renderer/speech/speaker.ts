import type { Language } from '../i18n';
import type { SpeechReply, SpeechRequest } from './protocol';

const VOICES: Record<Language, string> = { sq: 'sq', sr: 'sr', tr: 'tr', en: 'en-gb' };
/** A little slower than eSpeak's default 175: strangers, noise, second languages. */
const RATE = 150;

/** Told to the page whenever an utterance starts and ends: captions, tests and measurements. */
export interface SpokenDetail {
  text: string;
  language: Language;
  /** When the request was made and when its first audio was scheduled (performance.now()). */
  requestedAt: number;
  startedAt: number;
  /** Samples of audio made so far, and the loudest of them (0 would be silence). */
  samples: number;
  peak: number;
}

/**
 * Speaks on the device: eSpeak NG in a worker makes the audio, Web Audio plays it. A new
 * utterance cuts the one playing, as a key press should.
 */
class Speaker {
  private worker: Worker | null = null;
  private audio: AudioContext | null = null;
  private current: (SpokenDetail & { id: number; playAt: number }) | null = null;
  private playing: AudioBufferSourceNode[] = [];
  private nextId = 1;

  /** Starts the engine before the first request, so the first word is not late. */
  warmUp(): void {
    if (this.worker) return;
    this.worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = ({ data }: MessageEvent<SpeechReply>) => this.receive(data);
  }

  speak(text: string, language: Language): void {
    this.warmUp();
    this.stop();
    this.audio ??= new AudioContext();
    void this.audio.resume();
    const id = this.nextId++;
    const now = performance.now();
    this.current = {
      id,
      text,
      language,
      requestedAt: now,
      startedAt: 0,
      samples: 0,
      peak: 0,
      playAt: 0,
    };
    const request: SpeechRequest = { id, text, voice: VOICES[language], rate: RATE };
    this.worker!.postMessage(request);
  }

  stop(): void {
    for (const source of this.playing) source.stop();
    this.playing = [];
    this.current = null;
  }

  /** A short tone, for warnings that must be heard even with speech off. */
  beep(): void {
    this.audio ??= new AudioContext();
    const tone = this.audio.createOscillator();
    const gain = this.audio.createGain();
    gain.gain.value = 0.2;
    tone.frequency.value = 880;
    tone.connect(gain).connect(this.audio.destination);
    tone.start();
    tone.stop(this.audio.currentTime + 0.25);
  }

  private receive(reply: SpeechReply): void {
    const utterance = this.current;
    if (reply.kind === 'ready' || !utterance || reply.id !== utterance.id) return;
    if (reply.kind === 'end') {
      window.dispatchEvent(new CustomEvent<SpokenDetail>('kiosk-spoken', { detail: utterance }));
      return;
    }
    const audio = this.audio!;
    const buffer = audio.createBuffer(1, reply.samples.length, reply.sampleRate);
    const channel = buffer.getChannelData(0);
    let peak = utterance.peak;
    for (let i = 0; i < reply.samples.length; i++) {
      channel[i] = reply.samples[i]! / 32768;
      peak = Math.max(peak, Math.abs(channel[i]!));
    }
    const source = audio.createBufferSource();
    source.buffer = buffer;
    source.connect(audio.destination);
    const at = Math.max(audio.currentTime, utterance.playAt);
    source.start(at);
    this.playing.push(source);
    utterance.playAt = at + buffer.duration;
    utterance.samples += reply.samples.length;
    utterance.peak = peak;
    if (!utterance.startedAt) {
      utterance.startedAt = performance.now();
      window.dispatchEvent(new CustomEvent<SpokenDetail>('kiosk-speaking', { detail: utterance }));
    }
  }
}

export const speaker = new Speaker();

import i18next from 'i18next';
import { LANGUAGES, type Language } from '../i18n';
import { afterFirstPaint } from './firstPaint';
import type { SpeechReply, SpeechRequest, WarmRequest } from './protocol';

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
 * Told to the page as the warm-up goes: `kiosk-speech-warming` when it starts (the worker
 * is made then), `kiosk-speech-voice` as each voice is loaded, `kiosk-speech-ready` when
 * all are. Tests and the bench wait on them.
 */
export interface SpeechWarmDetail {
  /** The eSpeak NG voices loaded so far, in order. */
  voices: string[];
  /** When warming started and, once ready, when it ended (performance.now()). */
  startedAt: number;
  readyAt?: number;
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

  private warmScheduled = false;
  private warm: SpeechWarmDetail | null = null;

  /**
   * Loads the engine and warms the four voices once the screen has painted, so the first
   * touch finds them ready and the first screen is never later for it (the engine works
   * in its own thread; here only the worker is made and the audio output opened). A touch
   * before that (a window not yet shown paints nothing) starts it at once.
   */
  warmUp(): void {
    if (this.warmScheduled) return;
    this.warmScheduled = true;
    afterFirstPaint(() => this.startWarming());
  }

  /** Once: the worker, the audio output, and the warm-up request (all four voices). */
  private startWarming(): Worker {
    if (this.worker) return this.worker;
    this.warm = { voices: [], startedAt: performance.now() };
    this.worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = ({ data }: MessageEvent<SpeechReply>) => this.receive(data);
    // Opened now it starts suspended (no touch yet): the first touch only resumes it.
    this.audio ??= new AudioContext();
    const station = document.documentElement.lang;
    // The station's language last: its voice is the one left set.
    const order = LANGUAGES.map((l) => l.code).sort(
      (a, b) => Number(a === station) - Number(b === station),
    );
    const request: WarmRequest = {
      kind: 'warm',
      rate: RATE,
      samples: order.map((language) => {
        const t = i18next.getFixedT(language);
        return { voice: VOICES[language], text: `${t('title')}. ${t('home.instruction')}` };
      }),
    };
    this.worker.postMessage(request);
    this.tell('kiosk-speech-warming');
    return this.worker;
  }

  private tell(event: string): void {
    const detail = { ...this.warm!, voices: [...this.warm!.voices] };
    window.dispatchEvent(new CustomEvent<SpeechWarmDetail>(event, { detail }));
  }

  speak(text: string, language: Language): void {
    // Before the warm-up began: it starts now, and the worker speaks this once it is done.
    const worker = this.startWarming();
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
    const request: SpeechRequest = { kind: 'speak', id, text, voice: VOICES[language], rate: RATE };
    worker.postMessage(request);
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
    if (reply.kind === 'voice') {
      this.warm!.voices.push(reply.voice);
      this.tell('kiosk-speech-voice');
      return;
    }
    if (reply.kind === 'ready') {
      this.warm!.readyAt = performance.now();
      this.tell('kiosk-speech-ready');
      return;
    }
    const utterance = this.current;
    if (!utterance || reply.id !== utterance.id) return;
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

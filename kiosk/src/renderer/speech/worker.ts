/// <reference lib="webworker" />
// eSpeak NG, compiled by Emscripten, synthesising in a worker so the screen never waits on
// it. One engine for the worker's life: the 23 MB voice data is read once, at start.
import dataUrl from '@echogarden/espeak-ng-emscripten/espeak-ng.data?url';
import initEspeak from '@echogarden/espeak-ng-emscripten';
import type { SpeechReply, SpeechRequest, WarmRequest } from './protocol';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (reply: SpeechReply, transfer: Transferable[] = []) =>
  scope.postMessage(reply, transfer);

const engine = (async () => {
  const data = await (await fetch(dataUrl)).arrayBuffer();
  const module = await initEspeak({ getPreloadedPackage: () => data });
  return new module.eSpeakNGWorker();
})();

/**
 * The warm-up, once per worker: the engine runs slowly until its code has run (it is
 * compiled to JavaScript), and each voice reads its language's data at first use. So
 * each voice speaks one sample, its audio dropped. Speech requests wait for all of it:
 * a touch during the warm-up is spoken once it ends, and no voice is loaded twice.
 */
let warmed: Promise<void> | null = null;

function warm({ samples, rate }: WarmRequest): Promise<void> {
  warmed ??= (async () => {
    const espeak = await engine;
    for (const sample of samples) {
      espeak.set_voice(sample.voice);
      espeak.set_rate(rate);
      espeak.synthesize(sample.text, () => false);
      post({ kind: 'voice', voice: sample.voice });
    }
    post({ kind: 'ready', voices: samples.map((s) => s.voice) });
  })();
  return warmed;
}

let latest = 0;

async function speak(request: SpeechRequest) {
  latest = request.id;
  const espeak = await engine;
  await warmed;
  // A newer request came while the engine loaded or warmed: only the newest is spoken.
  if (request.id !== latest) return;
  espeak.set_voice(request.voice);
  espeak.set_rate(request.rate);
  const sampleRate = espeak.get_samplerate();
  // Each chunk goes out as soon as it is made, so playback starts on the first word.
  espeak.synthesize(request.text, (samples) => {
    post({ kind: 'chunk', id: request.id, samples, sampleRate }, [samples.buffer]);
    return false;
  });
  post({ kind: 'end', id: request.id });
}

scope.onmessage = ({ data }: MessageEvent<SpeechRequest | WarmRequest>) =>
  void (data.kind === 'warm' ? warm(data) : speak(data));

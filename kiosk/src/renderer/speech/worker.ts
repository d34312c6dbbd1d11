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

/** The next turn of the worker's loop: a request that came meanwhile is answered first. */
const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

let latest = 0;

/**
 * The engine is compiled to JavaScript (wasm2js): until its code has run a few times it
 * runs slowly, and each voice reads its language's data at first use. Warming speaks one
 * sample per voice and drops the audio, one voice per turn of the loop, so a person who
 * touches the screen meanwhile is answered between two voices, not after all four.
 */
async function warm({ samples, rate }: WarmRequest) {
  const espeak = await engine;
  for (const sample of samples) {
    await nextTurn();
    espeak.set_voice(sample.voice);
    espeak.set_rate(rate);
    espeak.synthesize(sample.text, () => false);
  }
  post({ kind: 'ready', voices: samples.map((s) => s.voice) });
}

async function speak(request: SpeechRequest) {
  latest = request.id;
  const espeak = await engine;
  // A newer request came while the engine loaded: only the newest is spoken.
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

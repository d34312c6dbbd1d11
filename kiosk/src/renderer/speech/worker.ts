/// <reference lib="webworker" />
// eSpeak NG, compiled by Emscripten, synthesising in a worker so the screen never waits on
// it. One engine for the worker's life: the 23 MB voice data is read once, at start.
import dataUrl from '@echogarden/espeak-ng-emscripten/espeak-ng.data?url';
import initEspeak from '@echogarden/espeak-ng-emscripten';
import type { SpeechReply, SpeechRequest } from './protocol';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (reply: SpeechReply, transfer: Transferable[] = []) =>
  scope.postMessage(reply, transfer);

const engine = (async () => {
  const data = await (await fetch(dataUrl)).arrayBuffer();
  const module = await initEspeak({ getPreloadedPackage: () => data });
  const worker = new module.eSpeakNGWorker();
  post({ kind: 'ready' });
  return worker;
})();

let latest = 0;
scope.onmessage = async ({ data }: MessageEvent<SpeechRequest>) => {
  latest = data.id;
  const espeak = await engine;
  // A newer request came while the engine loaded: only the newest is spoken.
  if (data.id !== latest) return;
  espeak.set_voice(data.voice);
  espeak.set_rate(data.rate);
  const sampleRate = espeak.get_samplerate();
  // Each chunk goes out as soon as it is made, so playback starts on the first word.
  espeak.synthesize(data.text, (samples) => {
    post({ kind: 'chunk', id: data.id, samples, sampleRate }, [samples.buffer]);
    return false;
  });
  post({ kind: 'end', id: data.id });
};

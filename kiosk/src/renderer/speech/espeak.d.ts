// The package ships no types: the part of its API the speech worker uses.
declare module '@echogarden/espeak-ng-emscripten' {
  interface EspeakWorker {
    set_voice(name: string): number;
    set_rate(wordsPerMinute: number): number;
    get_samplerate(): number;
    /** Calls back with each chunk of 16-bit samples; returning true stops synthesis. */
    synthesize(text: string, onChunk: (samples: Int16Array, events: unknown[]) => boolean): void;
  }
  interface EspeakModule {
    eSpeakNGWorker: new () => EspeakWorker;
  }
  const init: (options?: {
    getPreloadedPackage?: (name: string, size: number) => ArrayBuffer;
  }) => Promise<EspeakModule>;
  export default init;
}

/** linebreak 1.1 (UAX 14), the line breaker pdfkit's LineWrapper uses; it ships no types. */
declare module 'linebreak' {
  export default class LineBreaker {
    constructor(text: string);
    /** The next break opportunity: the index it is before, and whether it is mandatory. */
    nextBreak(): { position: number; required: boolean } | null;
  }
}

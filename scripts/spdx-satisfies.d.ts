// spdx-satisfies 6 ships no types (DefinitelyTyped's describe version 5's string argument).
declare module 'spdx-satisfies' {
  /**
   * Whether an SPDX expression is satisfied by the approved licences: identifiers, `+`
   * ranges or `WITH` exceptions, never `AND`/`OR`. Throws on what does not parse as SPDX.
   */
  function satisfies(expression: string, approved: string[]): boolean;
  export = satisfies;
}

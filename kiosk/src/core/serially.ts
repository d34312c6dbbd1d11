/**
 * `task` run one call at a time: each call's run starts once the run before it has settled
 * (failed or not), so what a call finds was read after the call was made. Two fetches of
 * an offline set at once (the first heartbeat's and the minute's, or a caller's) could
 * otherwise write in the other order: the older answer last, kept as the newest.
 */
export function serially(task: () => Promise<void>): () => Promise<void> {
  let last: Promise<void> = Promise.resolve();
  return () => {
    const run = last.then(task);
    last = run.catch(() => undefined);
    return run;
  };
}

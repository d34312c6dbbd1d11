/**
 * Calls `then` once the page's first contentful paint has been reported: work started
 * from it cannot delay the first screen. The paint observer is told after the frame was
 * presented; where paint timing is missing, the task after the next frame stands in.
 */
export function afterFirstPaint(then: () => void): void {
  if (!PerformanceObserver.supportedEntryTypes?.includes('paint')) {
    requestAnimationFrame(() => setTimeout(then, 0));
    return;
  }
  const observer = new PerformanceObserver((list) => {
    if (list.getEntriesByName('first-contentful-paint').length === 0) return;
    observer.disconnect();
    then();
  });
  // Buffered: a paint that happened before this call is reported too.
  observer.observe({ type: 'paint', buffered: true });
}

/**
 * Renders of series run one after the other. A call is answered from the last render while
 * `current` says it still holds; else it waits for the render running, and renders only if
 * that one's result does not hold either. A failed render keeps nothing: the next call
 * renders again.
 */
export function oneRenderAtATime<I, T>(
  current: (input: I, now: number) => T | null,
  render: (input: I, now: number) => Promise<T>,
): (input: I, now: number) => Promise<T> {
  let running: Promise<unknown> = Promise.resolve();
  return (input, now) => {
    const held = current(input, now);
    if (held !== null) return Promise.resolve(held);
    const next = running.then(() => current(input, now) ?? render(input, now));
    running = next.catch(() => undefined);
    return next;
  };
}

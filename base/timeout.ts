// A promise bounded by a timeout: the one copy the D-Bus clients of the helper and the test desktop
// share (docs/architecture.md#import-layers: base/ imports nothing of the project).

/**
 * `promise`'s outcome, or the error `timedOut` makes once `ms` have passed (it may also clean up,
 * e.g. forget the call it gives up on). The timer is cleared either way, and a rejection that is
 * not an Error becomes one.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(timedOut()), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

// The handles of the component's resources (session, spill store, streams):
// each wrapper class holds one, releases it in `close()`, and lets `using`
// call that `close()`.

/** Releases a resource handle jco made, if there is one. */
export function drop(resource) {
  resource?.[Symbol.dispose ?? Symbol.for('dispose')]?.();
}

/** Makes `Class`'s `close()` its `Symbol.dispose`, where the runtime has one. */
export function closedByUsing(Class) {
  if (Symbol.dispose) {
    Class.prototype[Symbol.dispose] = Class.prototype.close;
  }
}

/** The handle of a stream not yet closed; else throws. */
export function liveStream(resource) {
  if (!resource) throw new Error('tool-output-cap: this stream is closed');
  return resource;
}

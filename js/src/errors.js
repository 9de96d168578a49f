// Turning the component's `cap-error` results into JS exceptions.

/** Every `cap-error` case of the WIT, in its order. */
export const CAP_ERROR_CASES = Object.freeze([
  'invalid-budget',
  'invalid-settings',
  'invalid-argument',
  'outside-root',
  'not-found',
  'no-spill-dir',
  'io',
  'other',
]);

/** A call failed with a `cap-error`: `.case` is its case, `.message` its text. */
export class ToolCapError extends Error {
  constructor(errorCase, message) {
    super(message);
    this.name = 'ToolCapError';
    this.case = errorCase;
  }
}

// jco throws a ComponentError whose `payload` is the `{tag, val}` of the
// error variant; anything else (a trap, a bad argument) is passed on as is.
function asToolCapError(err) {
  const payload = err?.payload;
  if (payload && CAP_ERROR_CASES.includes(payload.tag) && typeof payload.val === 'string') {
    return new ToolCapError(payload.tag, payload.val);
  }
  return err;
}

/** Runs `call`, rethrowing a component error as a ToolCapError. */
export function translateErrors(call) {
  try {
    return call();
  } catch (err) {
    throw asToolCapError(err);
  }
}

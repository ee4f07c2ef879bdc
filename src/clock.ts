/** The current time in whole Unix seconds, the unit of every record's times. Reads `Date.now()`, so fake timers move it. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * How Drupal's Form API turns a value a client posted into an element's value, for a form
 * submitted programmatically (`drupal_form_submit()`), as Services submits the account forms.
 * `undefined` is an element that got no input (a missing key, or JSON `null`): it keeps its default.
 */

/** PHP's string conversion of a scalar (`true` "1", `false` ""). */
export function phpString(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "1" : "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : undefined;
  return undefined;
}

/** A `textfield` (`form_type_textfield_value()`): line breaks removed; a value that is no scalar is no text. */
export function textfieldValue(input: unknown): string | undefined {
  if (input === undefined || input === null) return undefined;
  return (phpString(input) ?? "").replace(/[\r\n]/g, "");
}

/** A `checkbox` (`form_type_checkbox_value()`): any value posted checks it, even `0`; only no value leaves the default. */
export function checkboxValue(input: unknown): 1 | undefined {
  return input === undefined || input === null ? undefined : 1;
}

/** An array key as PHP makes one of a scalar: integers and integer strings as numbers' text, booleans 0/1, floats truncated. */
export function phpArrayKey(value: unknown): string | undefined {
  if (typeof value === "boolean") return value ? "1" : "0";
  if (typeof value === "number") return Number.isFinite(value) ? String(Math.trunc(value)) : undefined;
  if (typeof value === "string") return value;
  return undefined;
}

/** A `checkboxes` value (`form_type_checkboxes_value()`): the posted values (nulls dropped) as keys; anything but an array is none. */
export function checkboxesValue(input: unknown): string[] | undefined {
  if (input === undefined || input === null) return undefined;
  if (typeof input !== "object") return [];
  const values = Array.isArray(input) ? input : Object.values(input as Record<string, unknown>);
  return values.filter((value) => value !== null && value !== undefined).map((value) => phpArrayKey(value) ?? "");
}

/** PHP's `(array)` of an argument whose type is `array`: a scalar becomes a one-element list. */
export function phpArray(value: unknown): Record<string, unknown> {
  if (typeof value === "object" && value !== null) return Array.isArray(value) ? { ...value } : (value as Record<string, unknown>);
  return { "0": value };
}

/** A key of a posted array, by PHP `isset()`: absent when missing or null. */
export function member(values: Record<string, unknown>, key: string): unknown {
  if (!Object.hasOwn(values, key)) return undefined;
  const value = values[key];
  return value === null ? undefined : value;
}

/** `drupal_strlen()`: characters, not UTF-16 units. */
export function drupalStrlen(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

export { phpTrim } from "../../mail/format.js";

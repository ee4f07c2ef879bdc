/** PHP's `trim($path, '/')`, as a loop: `/\/+$/` is quadratic on a client's `//////…x`. */
export function trimSlashes(path: string): string {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === SLASH) start += 1;
  while (end > start && path.charCodeAt(end - 1) === SLASH) end -= 1;
  return path.slice(start, end);
}

/** Slashes off the end of a path only, as PHP's `rtrim($path, '/')`. */
export function trimTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === SLASH) end -= 1;
  return path.slice(0, end);
}

const SLASH = 0x2f;

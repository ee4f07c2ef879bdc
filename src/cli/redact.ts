/** The credentials a connection URL carries (the whole URL, its password raw and decoded), for {@link redact}; nothing for a non-URL. */
export function credentialsOf(url: string): string[] {
  const found = [url];
  try {
    const { password, searchParams } = new URL(url);
    if (password !== "") found.push(password, decodeURIComponent(password));
    // PostgreSQL also takes the password as a parameter.
    for (const key of ["password", "sslpassword"]) for (const value of searchParams.getAll(key)) found.push(value, encodeURIComponent(value));
  } catch {
    // Not a URL: only the whole string is known.
  }
  return found;
}

/** A message with each secret replaced by `***`, longest first, so a URL goes as a whole before its password. */
export function redact(message: string, secrets: readonly string[]): string {
  let text = message;
  for (const secret of [...secrets].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)) text = text.split(secret).join("***");
  // And any URL's password the secrets did not name (one given where no option expected it).
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:)[^\s/@]*@/gi, "$1***@").replace(/([?&](?:ssl)?password=)[^&\s]*/gi, "$1***");
}

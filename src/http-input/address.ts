import { isIP, isIPv4 } from "node:net";

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** An address as Drupal shows it: IPv4-mapped IPv6 (Node's dual-stack `::ffff:127.0.0.1`) as plain IPv4, anything else as is. */
export function plainAddress(address: string): string {
  const mapped = MAPPED_V4.exec(address);
  return mapped !== null && isIPv4(mapped[1]!) ? mapped[1]! : address;
}

/**
 * The group the throttle and the hashing queue count an address under: IPv4 itself (also carried
 * in IPv6: mapped, SIIT, NAT64, compatible), other IPv6 its first `v6PrefixBits` bits (a subscriber
 * gets a whole /64). Not an IP address: `undefined`, never one pooled group (docs/security.md#protections).
 * @param v6PrefixBits - 1 to 128; 128 counts every IPv6 address on its own.
 * @example
 * ```ts
 * addressGroup("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 64); // "2001:db8:1:2::/64"
 * addressGroup("::ffff:203.0.113.7", 64);               // "203.0.113.7"
 * addressGroup("64:ff9b::203.0.113.7", 64);             // "203.0.113.7"
 * addressGroup("", 64);                                 // undefined
 * ```
 */
export function addressGroup(address: string, v6PrefixBits: number): string | undefined {
  const plain = plainAddress(address);
  const bare = plain.split("%", 1)[0]!;
  const kind = isIP(bare);
  if (kind === 4) return bare;
  if (kind !== 6) return undefined;
  const groups = expandIPv6(bare);
  const embedded = embeddedIPv4(groups);
  if (embedded !== undefined) return embedded;
  if (groups.slice(0, 7).every((group) => group === 0) && groups[7]! <= 1) return compressIPv6(groups);
  let bits = v6PrefixBits;
  const masked = groups.map((group) => {
    const keep = Math.max(0, Math.min(16, bits));
    bits -= 16;
    return keep === 0 ? 0 : group & ((0xffff << (16 - keep)) & 0xffff);
  });
  if (v6PrefixBits >= 128) return compressIPv6(masked);
  return `${compressIPv6(masked)}/${v6PrefixBits}`;
}

/** The IPv4 address an IPv6 address carries in its last 32 bits, for the prefixes that mean one. */
function embeddedIPv4(groups: readonly number[]): string | undefined {
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const carries =
    (zeros(0, 5) && groups[5] === 0xffff) || // ::ffff:a.b.c.d, mapped
    (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) || // ::ffff:0:a.b.c.d, SIIT
    (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) || // 64:ff9b::a.b.c.d, NAT64
    (zeros(0, 6) && groups[6] !== 0); // ::a.b.c.d, IPv4-compatible (::1 and :: are not)
  if (!carries) return undefined;
  return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
}

/** The eight 16-bit groups of an address `isIP` accepted as IPv6 (no zone). */
function expandIPv6(address: string): number[] {
  let text = address;
  if (text.includes(".")) {
    // An embedded IPv4 tail (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) is the last two groups.
    const at = text.lastIndexOf(":");
    const [a, b, c, d] = text
      .slice(at + 1)
      .split(".")
      .map(Number) as [number, number, number, number];
    text = `${text.slice(0, at + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  if (!text.includes("::")) return parse(text);
  const [head, rest] = text.split("::", 2) as [string, string];
  const left = parse(head);
  const right = parse(rest);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** RFC 5952 text: lower-case hex, the longest run of two or more zero groups as `::`. */
function compressIPv6(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < groups.length;) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === 0) j += 1;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart === -1) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}

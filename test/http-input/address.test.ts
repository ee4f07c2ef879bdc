import { describe, expect, it } from "vitest";
import { addressGroup, plainAddress } from "../../src/http-input/address.js";

describe("plainAddress", () => {
  it("shows an IPv4-mapped IPv6 address as IPv4, as PHP's REMOTE_ADDR does", () => {
    expect(plainAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(plainAddress("::FFFF:203.0.113.7")).toBe("203.0.113.7");
  });
  it("leaves every other address as it is", () => {
    for (const address of ["127.0.0.1", "::1", "2001:db8::1", "::ffff:999.1.1.1", "", "unix-socket"]) expect(plainAddress(address)).toBe(address);
  });
});

describe("addressGroup", () => {
  it("counts IPv4 addresses, plain or mapped, on their own", () => {
    expect(addressGroup("203.0.113.7", 64)).toBe("203.0.113.7");
    expect(addressGroup("::ffff:203.0.113.7", 64)).toBe("203.0.113.7");
    expect(addressGroup("0:0:0:0:0:ffff:cb00:7107", 64)).toBe("203.0.113.7");
  });
  it("counts an IPv6 address by its prefix, in one canonical spelling", () => {
    expect(addressGroup("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 64)).toBe("2001:db8:1:2::/64");
    expect(addressGroup("2001:0DB8:0001:0002:0000:0000:0000:0001", 64)).toBe("2001:db8:1:2::/64");
    expect(addressGroup("2001:db8:1:2::ffff", 64)).toBe(addressGroup("2001:db8:1:2:1:2:3:4", 64));
    expect(addressGroup("2001:db8:1:3::1", 64)).not.toBe(addressGroup("2001:db8:1:2::1", 64));
    expect(addressGroup("2001:db8:1:2:3::1", 48)).toBe("2001:db8:1::/48");
    expect(addressGroup("2001:db8:1:2:3::1", 56)).toBe("2001:db8:1::/56");
    expect(addressGroup("2001:db8:1:2ff::1", 56)).toBe("2001:db8:1:200::/56");
  });
  it("counts an IPv4 client behind a translator (NAT64, SIIT, IPv4-compatible) as itself", () => {
    expect(addressGroup("64:ff9b::192.0.2.1", 64)).toBe("192.0.2.1");
    expect(addressGroup("64:ff9b::198.51.100.7", 64)).toBe("198.51.100.7");
    expect(addressGroup("64:ff9b::c000:201", 64)).toBe("192.0.2.1");
    expect(addressGroup("::ffff:0:192.0.2.1", 64)).toBe("192.0.2.1");
    expect(addressGroup("::192.0.2.1", 64)).toBe("192.0.2.1");
    expect(addressGroup("::1", 64)).toBe("::1");
    expect(addressGroup("::", 64)).toBe("::");
  });

  it("keeps the whole address at 128 bits, and drops a zone", () => {
    expect(addressGroup("2001:db8::1", 128)).toBe("2001:db8::1");
    expect(addressGroup("fe80::1%eth0", 64)).toBe("fe80::/64");
    expect(addressGroup("2001:db8::1.2.3.4", 128)).toBe("2001:db8::102:304");
  });
  it("puts nothing that is not an address in a group, so that no two such clients share one", () => {
    for (const value of ["", "garbage-1", "garbage-2", "x".repeat(1000), "999.1.1.1"]) expect(addressGroup(value, 64)).toBeUndefined();
  });
});

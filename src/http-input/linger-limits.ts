/**
 * How long and how much of a refused upload is read and dropped after its 413, so the client
 * reads the reply, not a reset (docs/security.md#limits-and-what-a-client-sees-at-each).
 *
 * @module
 */

/** The longest the rest of a refused upload is read after the reply, as nginx's `lingering_time` (there 30 s). */
export const LINGER_MS = 10_000;
/** With nothing arriving for this long, the client has stopped sending: close (nginx's `lingering_timeout`, 5 s). */
export const LINGER_IDLE_MS = 2_000;
/** The most bytes of a refused upload read and thrown away after the reply. */
export const LINGER_BYTES = 64 * 1024 * 1024;

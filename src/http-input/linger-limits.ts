/**
 * How long, and how much of, a refused upload is read and thrown away after its 413, so that
 * the client, still sending, reads the reply instead of a reset. One set for every binding.
 *
 * @module
 */

/** The longest the rest of a refused upload is read after the reply, as nginx's `lingering_time` (there 30 s). */
export const LINGER_MS = 10_000;
/** With nothing arriving for this long, the client has stopped sending: close (nginx's `lingering_timeout`, 5 s). */
export const LINGER_IDLE_MS = 2_000;
/** The most bytes of a refused upload read and thrown away after the reply. */
export const LINGER_BYTES = 64 * 1024 * 1024;

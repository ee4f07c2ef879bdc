import { createSessionId, hashSessionId, type SessionRecord, type SessionStore, type StoredSession } from "services-session-auth";

/**
 * Recipe: write your own store. A whole SessionStore over a Map, as a template for a real
 * backend: keep only hashed ids, never compute expiry, resolve null for anything unknown.
 * test/examples/recipes.test.ts runs the store contract suite on it.
 */
export function mapSessionStore(): SessionStore {
  const rows = new Map<string, SessionRecord>(); // handle → record; a real store indexes by uid too
  const live = (record: SessionRecord | undefined) => record !== undefined && record.expiresAt > Date.now() / 1000;
  const byUser = (uid: string): StoredSession[] =>
    [...rows]
      .filter(([, record]) => record.uid === uid && live(record))
      .map(([handle, record]) => ({ handle, record }))
      .sort((a, b) => a.record.createdAt - b.record.createdAt);

  return {
    async create(record) {
      const sessid = createSessionId(); // 256 bits from the CSPRNG
      rows.set(hashSessionId(sessid), { ...record });
      return sessid;
    },
    async get(sessid) {
      const handle = hashSessionId(sessid);
      const record = rows.get(handle);
      return live(record) ? { handle, record: { ...record! } } : null;
    },
    async touch(handle, lastSeenAt, expiresAt) {
      const record = rows.get(handle);
      if (record !== undefined) rows.set(handle, { ...record, lastSeenAt, expiresAt });
    },
    async destroy(handle) {
      rows.delete(handle);
    },
    async listByUser(uid) {
      return byUser(uid);
    },
    async destroyByUser(uid) {
      const mine = byUser(uid);
      for (const { handle } of mine) rows.delete(handle);
      return mine.length;
    },
  };
}

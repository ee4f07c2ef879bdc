/**
 * A TCP proxy on loopback in front of a store, that injects the faults production networks have:
 * refused connections, stalls (nothing flows, then everything held flows at once), slow replies,
 * black holes (connections already open go silent forever, new ones pass), and connections cut.
 * Test code only: it listens on 127.0.0.1 and forwards to one loopback port.
 */
import { createServer, connect, type Server, type Socket } from "node:net";

/** How new data is forwarded: at once, held until `pass()`, or each chunk after `delayMs`. */
type Mode = { readonly kind: "pass" } | { readonly kind: "stall" } | { readonly kind: "delay"; readonly delayMs: number; readonly both: boolean };

/** One direction of one connection: where its bytes go, and what is held for it. */
interface Lane {
  readonly to: Socket;
  held: Buffer[];
  /** When the last delayed chunk of this lane goes out, so chunks keep their order. */
  nextAt: number;
}

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
  readonly up: Lane;
  readonly down: Lane;
  /** Black-holed: nothing it sends or is sent is ever forwarded again, and it is never closed. */
  holed: boolean;
}

export interface FaultProxy {
  /** The port clients connect to. */
  readonly port: number;
  /** Connections accepted since the start. */
  readonly accepted: number;
  /** Connections open now (black-holed ones included). */
  readonly open: number;
  /** Forwards everything, at once; a stall's held bytes go first, in order. */
  pass(): void;
  /** Holds everything, in both directions, on every connection, old and new, until `pass()`. */
  stall(): void;
  /** Forwards each reply chunk (and, with `both`, each request chunk) `ms` late, in order. */
  delay(ms: number, both?: boolean): void;
  /** The connections open now go silent for ever (bytes dropped, never closed); new connections pass. */
  blackHole(): void;
  /** Refuses new connections (`ECONNREFUSED`) until `accept()`; open ones are left as they are. */
  refuse(): Promise<void>;
  /** Takes new connections again after `refuse()`. */
  accept(): Promise<void>;
  /** Cuts every open connection (both sides closed). */
  cut(): void;
  close(): Promise<void>;
}

/** A proxy on a free loopback port (or `port`) in front of `127.0.0.1:targetPort`. */
export async function faultProxy(targetPort: number, port = 0): Promise<FaultProxy> {
  let mode: Mode = { kind: "pass" };
  const pairs = new Set<Pair>();
  /** Black-holed connections, kept so `close()` can end them. */
  const holes = new Set<Pair>();
  let accepted = 0;

  function send(pair: Pair, lane: Lane, chunk: Buffer): void {
    if (pair.holed) return;
    if (mode.kind === "stall") {
      lane.held.push(chunk);
      return;
    }
    if (mode.kind === "delay" && (lane === pair.down || mode.both)) {
      const at = Math.max(Date.now() + mode.delayMs, lane.nextAt);
      lane.nextAt = at;
      setTimeout(() => {
        if (!pair.holed && !lane.to.destroyed) lane.to.write(chunk);
      }, at - Date.now());
      return;
    }
    lane.to.write(chunk);
  }

  function onConnection(client: Socket): void {
    accepted += 1;
    const upstream = connect(targetPort, "127.0.0.1");
    const pair: Pair = {
      client,
      upstream,
      up: { to: upstream, held: [], nextAt: 0 },
      down: { to: client, held: [], nextAt: 0 },
      holed: false,
    };
    pairs.add(pair);
    client.on("data", (chunk: Buffer) => send(pair, pair.up, chunk));
    upstream.on("data", (chunk: Buffer) => send(pair, pair.down, chunk));
    const end = () => {
      if (pair.holed) return;
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  }

  let server: Server = createServer(onConnection);
  const listen = (at: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(at, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
    });
  const bound = await listen(port);

  function flush(): void {
    for (const pair of pairs) {
      for (const lane of [pair.up, pair.down]) {
        const held = lane.held;
        lane.held = [];
        if (!pair.holed) for (const chunk of held) lane.to.write(chunk);
      }
    }
  }

  return {
    port: bound,
    get accepted() {
      return accepted;
    },
    get open() {
      return pairs.size;
    },
    pass() {
      mode = { kind: "pass" };
      flush();
    },
    stall() {
      mode = { kind: "stall" };
    },
    delay(ms, both = false) {
      flush();
      mode = { kind: "delay", delayMs: ms, both };
    },
    blackHole() {
      for (const pair of pairs) {
        pair.holed = true;
        pair.up.held = [];
        pair.down.held = [];
        // Kept open, unread: the peers see a connection that never answers, as after a lost NAT entry.
        pairs.delete(pair);
        holes.add(pair);
      }
      mode = { kind: "pass" };
    },
    async refuse() {
      // The listening socket closes at once; close()'s callback would wait for the open connections.
      server.close();
    },
    async accept() {
      server = createServer(onConnection);
      await listen(bound);
    },
    cut() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      pairs.clear();
    },
    async close() {
      for (const pair of [...pairs, ...holes]) {
        pair.holed = true;
        pair.client.destroy();
        pair.upstream.destroy();
      }
      pairs.clear();
      holes.clear();
      if (server.listening) server.close();
    },
  };
}
